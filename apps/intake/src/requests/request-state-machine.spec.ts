import { answerTask, decide, withdrawAcceptance, type Decision, type RequestState, type Submission, type TaskState } from './request-state-machine';

const A = '510000001';
const B = '510000002';
const C = '510000003';

/** A bundle whose stored hash would be `hash`. */
const hashed = (hash: string): Submission['fingerprint'] => ({ value: hash, bytes: 1_000 });

const submission = (overrides: Partial<Submission> = {}): Submission => ({
  fingerprint: hashed('new-hash'),
  status: 'active',
  intent: 'proposal',
  orderDetail: undefined,
  performerIks: [A, B],
  patient: 'masked',
  ...overrides,
});

const task = (clinicIk: string, overrides: Partial<TaskState> = {}): TaskState => ({
  id: `task-${clinicIk}`,
  clinicIk,
  status: 'requested',
  businessStatus: null,
  ...overrides,
});

const proposal = (tasks: TaskState[] = [task(A), task(B)]): RequestState => ({
  status: 'active',
  intent: 'proposal',
  selectedClinicIk: null,
  latestHash: 'old-hash',
  tasks,
});

const ordered = (): RequestState => ({
  status: 'active',
  intent: 'order',
  selectedClinicIk: A,
  latestHash: 'old-hash',
  tasks: [task(A, { status: 'in-progress', businessStatus: 'accepted' }), task(B, { status: 'cancelled', businessStatus: 'accepted' })],
});

const selection = (clinicIk = A) => submission({ intent: 'order', orderDetail: 'selected-provider', performerIks: [clinicIk], patient: 'complete' });
const withdrawal = (clinicIk = A) => submission({ intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [clinicIk], patient: 'complete' });

describe('decide: a new identifier', () => {
  it('creates an active proposal with one requested Task per requested clinic', () => {
    expect(decide(undefined, submission())).toEqual({
      kind: 'apply',
      change: 'created',
      next: { status: 'active', intent: 'proposal', selectedClinicIk: null },
      tasks: [
        { clinicIk: A, status: 'requested', clearBusinessStatus: true, send: true, action: 'answer-requested' },
        { clinicIk: B, status: 'requested', clearBusinessStatus: true, send: true, action: 'answer-requested' },
      ],
    });
  });

  it('creates one Task for a clinic named twice', () => {
    const decision = decide(undefined, submission({ performerIks: [A, A] }));
    expect(decision.kind === 'apply' && decision.tasks).toHaveLength(1);
  });

  it.each([
    ['a revocation', submission({ status: 'revoked' })],
    ['a selection', selection()],
    ['a withdrawal', withdrawal()],
  ])('rejects %s of an unknown request as a conflict', (_name, incoming) => {
    expect(decide(undefined, incoming)).toMatchObject({ kind: 'reject', refusal: 'conflict', code: 'conflict' });
  });
});

describe('decide: supplemented data (active/proposal)', () => {
  it('sends every open Task back to requested, keeping its last businessStatus', () => {
    const current = proposal([task(A, { status: 'on-hold', businessStatus: 'query' }), task(B, { status: 'accepted', businessStatus: 'accepted' })]);
    expect(decide(current, submission())).toMatchObject({
      kind: 'apply',
      change: 'supplemented',
      next: { status: 'active', intent: 'proposal' },
      tasks: [
        { clinicIk: A, taskId: 'task-510000001', status: 'requested', clearBusinessStatus: false, send: true },
        { clinicIk: B, taskId: 'task-510000002', status: 'requested', clearBusinessStatus: false, send: true },
      ],
    });
  });

  it('reopens a cancelled Task named again without its businessStatus', () => {
    const current = proposal([task(A, { status: 'cancelled', businessStatus: 'accepted' }), task(B)]);
    const decision = decide(current, submission());
    expect(decision.kind === 'apply' && decision.tasks[0]).toEqual({
      clinicIk: A,
      taskId: 'task-510000001',
      status: 'requested',
      clearBusinessStatus: true,
      send: true,
      action: 'answer-requested',
    });
  });

  it('adds a Task for a newly named clinic and sends every open Task back to requested, named or not', () => {
    const decision = decide(proposal(), submission({ performerIks: [A, C] }));
    expect(decision.kind === 'apply' && decision.tasks).toEqual([
      { clinicIk: A, taskId: 'task-510000001', status: 'requested', clearBusinessStatus: false, send: true, action: 'answer-requested' },
      { clinicIk: B, taskId: 'task-510000002', status: 'requested', clearBusinessStatus: false, send: true, action: 'answer-requested' },
      { clinicIk: C, status: 'requested', clearBusinessStatus: true, send: true, action: 'answer-requested' },
    ]);
  });

  it('leaves a cancelled Task that is not named again cancelled', () => {
    const decision = decide(proposal([task(A), task(B, { status: 'cancelled', businessStatus: 'accepted' })]), submission({ performerIks: [A] }));
    expect(decision.kind === 'apply' && decision.tasks.map((change) => change.clinicIk)).toEqual([A]);
  });

  it('only adds the new clinics of a version that changes nothing else: the Tasks of the clinics asked before stay as they are', () => {
    const current = {
      ...proposal([task(A, { status: 'rejected', businessStatus: 'declined' }), task(B, { status: 'accepted', businessStatus: 'accepted' })]),
      latestContentHash: 'content',
    };
    const decision = decide(current, submission({ fingerprint: { ...hashed('new-hash'), content: 'content' }, performerIks: [A, B, C] }));
    expect(decision).toMatchObject({ kind: 'apply', change: 'supplemented', next: { status: 'active', intent: 'proposal' } });
    expect(decision.kind === 'apply' && decision.tasks).toEqual([
      { clinicIk: C, status: 'requested', clearBusinessStatus: true, send: true, action: 'answer-requested' },
    ]);
  });

  it('supplements as before when the content changed too, a clinic asked before is left out, or no clinic is new', () => {
    const current = { ...proposal(), latestContentHash: 'content' };
    const reopened = (fingerprint: Submission['fingerprint'], performerIks: string[]) => {
      const decision = decide(current, submission({ fingerprint, performerIks }));
      return decision.kind === 'apply' ? decision.tasks.map((change) => change.clinicIk) : [];
    };
    expect(reopened({ ...hashed('new-hash'), content: 'other content' }, [A, B, C])).toEqual([A, B, C]);
    expect(reopened({ ...hashed('new-hash'), content: 'content' }, [A, C])).toEqual([A, B, C]);
    expect(reopened({ ...hashed('new-hash'), content: 'content' }, [A, B])).toEqual([A, B]);
    // A version stored before its content was fingerprinted.
    expect(decide(proposal(), submission({ fingerprint: { ...hashed('new-hash'), content: 'content' }, performerIks: [A, B, C] }))).toMatchObject({
      tasks: [{ clinicIk: A }, { clinicIk: B }, { clinicIk: C }],
    });
  });

  it("only adds clinics though the version does not name the clinics the party's rule asked, and a supplement reaches them", () => {
    const current = { ...proposal([task(A), task(B), { ...task(C), askedByRule: { source: 'list' } }]), latestContentHash: 'content' };
    const D = '510000004';
    const added = decide(current, submission({ fingerprint: { ...hashed('new-hash'), content: 'content' }, performerIks: [A, B, D] }));
    expect(added.kind === 'apply' && added.tasks.map((change) => change.clinicIk)).toEqual([D]);
    const supplemented = decide(current, submission({ fingerprint: { ...hashed('new-hash'), content: 'other content' }, performerIks: [A, B] }));
    expect(supplemented.kind === 'apply' && supplemented.tasks.map((change) => change.clinicIk)).toEqual([A, B, C]);
    // The version the rule left as it was is still recognised when the hospital sends it again.
    expect(decide(current, submission({ fingerprint: hashed('old-hash'), performerIks: [A, B] }))).toEqual({ kind: 'unchanged' });
  });

  it('treats a bundle identical to the latest version as a retry: nothing changes', () => {
    expect(decide(proposal(), submission({ fingerprint: hashed('old-hash') }))).toEqual({ kind: 'unchanged' });
  });

  it('rejects intent order without an orderDetail code as invalid', () => {
    expect(decide(proposal(), submission({ intent: 'order' }))).toMatchObject({ kind: 'reject', refusal: 'invalid' });
  });

  it('rejects supplemented data while a clinic is selected as a conflict', () => {
    expect(decide(ordered(), submission({ performerIks: [A] }))).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });
});

describe('decide: selecting a provider', () => {
  const accepted = () => proposal([task(A, { status: 'accepted', businessStatus: 'accepted' }), task(B, { status: 'on-hold', businessStatus: 'query' })]);

  it('moves to active/order, puts the selected Task in progress and cancels the others', () => {
    expect(decide(accepted(), selection())).toEqual({
      kind: 'apply',
      change: 'selected',
      next: { status: 'active', intent: 'order', selectedClinicIk: A },
      tasks: [
        { clinicIk: A, taskId: 'task-510000001', status: 'in-progress', clearBusinessStatus: false, send: true, action: 'selected' },
        { clinicIk: B, taskId: 'task-510000002', status: 'cancelled', clearBusinessStatus: false, send: false, action: 'cancelled' },
      ],
    });
  });

  it.each([
    ['whose latest answer is a query', B],
    ['that was never asked', C],
  ])('rejects a clinic %s as a conflict', (_name, clinicIk) => {
    expect(decide(accepted(), selection(clinicIk))).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });

  it('rejects a clinic whose accepted Task was cancelled as a conflict', () => {
    const current = proposal([task(A, { status: 'cancelled', businessStatus: 'accepted' })]);
    expect(decide(current, selection())).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });

  it('rejects a selection with a masked patient as invalid', () => {
    expect(decide(accepted(), { ...selection(), patient: 'masked' })).toMatchObject({ kind: 'reject', refusal: 'invalid', code: 'required' });
  });

  it('rejects a selection naming two clinics as invalid', () => {
    expect(decide(accepted(), { ...selection(), performerIks: [A, B] })).toMatchObject({ kind: 'reject', refusal: 'invalid' });
  });

  it('rejects selected-provider with intent proposal as invalid', () => {
    expect(decide(accepted(), { ...selection(), intent: 'proposal' })).toMatchObject({ kind: 'reject', refusal: 'invalid' });
  });

  it('rejects a second selection while one exists as a conflict', () => {
    expect(decide(ordered(), selection(B))).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });
});

describe('decide: withdrawing the selection', () => {
  it('returns to active/proposal and cancels the selected Task; the others stay cancelled', () => {
    expect(decide(ordered(), withdrawal())).toEqual({
      kind: 'apply',
      change: 'selection-withdrawn',
      next: { status: 'active', intent: 'proposal', selectedClinicIk: null },
      tasks: [{ clinicIk: A, taskId: 'task-510000001', status: 'cancelled', clearBusinessStatus: false, send: false, action: 'cancelled' }],
    });
  });

  it('rejects a withdrawal without a selection as a conflict', () => {
    expect(decide(proposal(), withdrawal())).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });

  it('rejects a withdrawal naming another clinic as a conflict', () => {
    expect(decide(ordered(), withdrawal(B))).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });
});

describe('decide: revocation', () => {
  it.each([
    ['an active proposal', proposal()],
    ['an active order', ordered()],
  ])('revokes %s and cancels every Task not yet cancelled', (_name, current) => {
    const decision = decide(current, submission({ status: 'revoked' }));
    expect(decision).toMatchObject({ kind: 'apply', change: 'revoked', next: { status: 'revoked', selectedClinicIk: null } });
    const open = current.tasks.filter((candidate) => candidate.status !== 'cancelled');
    expect(decision.kind === 'apply' && decision.tasks).toEqual(
      open.map((candidate) => ({
        clinicIk: candidate.clinicIk,
        taskId: candidate.id,
        status: 'cancelled',
        clearBusinessStatus: false,
        send: false,
        action: 'cancelled',
      })),
    );
  });

  it('rejects every further bundle for a revoked request as a conflict', () => {
    const revoked: RequestState = { ...proposal(), status: 'revoked' };
    expect(decide(revoked, submission())).toMatchObject({ kind: 'reject', refusal: 'conflict' });
    expect(decide(revoked, submission({ status: 'revoked' }))).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });

  it('answers a retransmission of the revocation itself as a retry: nothing changes', () => {
    const revoked: RequestState = { ...proposal(), status: 'revoked' };
    expect(decide(revoked, submission({ fingerprint: hashed('old-hash'), status: 'revoked' }))).toEqual({ kind: 'unchanged' });
  });
});

/**
 * Spec: "revoked takes precedence over every other field: the bundle is always treated as
 * cancellation." Each revoked bundle below carries another trigger of the state machine as well, and
 * is sent in each state in which the request still takes bundles. Whatever its other fields say, the
 * outcome is the cancellation and nothing else: the request is revoked, every Task not yet cancelled
 * is cancelled and its clinic told only that (no Task is created, reopened, put in progress or sent
 * the new version), the bundle's intent is not applied and no clinic is selected.
 *
 * The control in each cell: the same bundle without `status: revoked` is decided otherwise there (a
 * supplement, a selection, a withdrawal or a refusal), so every cell is a place where a check made
 * before the revocation's would take the bundle for something else.
 */
describe('decide: revocation takes precedence over every other field', () => {
  type Outcome = 'supplemented' | 'selected' | 'selection-withdrawn' | 'conflict' | 'invalid';
  const answered = (a: Partial<TaskState>, b: Partial<TaskState>) => proposal([task(A, a), task(B, b)]);
  const accepted = { status: 'accepted', businessStatus: 'accepted' } as const;

  // The states a revocation may come in, each with the clinics whose Tasks are still open: those it cancels.
  const states: [name: string, current: RequestState, open: string[]][] = [
    ['active/proposal, no answer yet', proposal(), [A, B]],
    ['active/proposal, A accepted, B asked a query', answered(accepted, { status: 'on-hold', businessStatus: 'query' }), [A, B]],
    [
      'active/proposal, A declined, B wants more data',
      answered({ status: 'rejected', businessStatus: 'declined' }, { status: 'on-hold', businessStatus: 'more-data-required' }),
      [A, B],
    ],
    ['active/proposal after a withdrawal, A accepted, B cancelled', answered(accepted, { status: 'cancelled', businessStatus: 'accepted' }), [A]],
    ['active/order, A selected, B cancelled', ordered(), [A]],
  ];

  // The other triggers, each with what the bundle without `status: revoked` is in each of the states above, in their order.
  const triggers: [name: string, incoming: Submission, otherwise: Outcome[]][] = [
    ['supplemented data, the same performers', submission(), ['supplemented', 'supplemented', 'supplemented', 'supplemented', 'conflict']],
    [
      'supplemented data with complete patient data',
      submission({ patient: 'complete' }),
      ['supplemented', 'supplemented', 'supplemented', 'supplemented', 'conflict'],
    ],
    ['an added performer (C)', submission({ performerIks: [A, B, C] }), ['supplemented', 'supplemented', 'supplemented', 'supplemented', 'conflict']],
    ['a removed performer (A alone)', submission({ performerIks: [A] }), ['supplemented', 'supplemented', 'supplemented', 'supplemented', 'conflict']],
    ['other performers (C alone)', submission({ performerIks: [C] }), ['supplemented', 'supplemented', 'supplemented', 'supplemented', 'conflict']],
    ['intent order without an orderDetail code', submission({ intent: 'order' }), ['invalid', 'invalid', 'invalid', 'invalid', 'invalid']],
    ['the selection of A', selection(A), ['conflict', 'selected', 'conflict', 'selected', 'conflict']],
    ['the selection of B, whose answer is not "accepted"', selection(B), ['conflict', 'conflict', 'conflict', 'conflict', 'conflict']],
    ['the selection of C, never asked', selection(C), ['conflict', 'conflict', 'conflict', 'conflict', 'conflict']],
    ['the selection of A with a masked patient', { ...selection(A), patient: 'masked' }, ['invalid', 'invalid', 'invalid', 'invalid', 'conflict']],
    ['the selection of A and B', { ...selection(A), performerIks: [A, B] }, ['invalid', 'invalid', 'invalid', 'invalid', 'conflict']],
    ['selected-provider with intent proposal', { ...selection(A), intent: 'proposal' }, ['invalid', 'invalid', 'invalid', 'invalid', 'invalid']],
    ['the withdrawal of A', withdrawal(A), ['conflict', 'conflict', 'conflict', 'conflict', 'selection-withdrawn']],
    ['the withdrawal of B, not selected', withdrawal(B), ['conflict', 'conflict', 'conflict', 'conflict', 'conflict']],
    ['the withdrawal of A naming C too', { ...withdrawal(A), performerIks: [A, C] }, ['conflict', 'conflict', 'conflict', 'conflict', 'conflict']],
    [
      'selected-provider-cancelled with intent proposal',
      { ...withdrawal(A), intent: 'proposal' },
      ['conflict', 'conflict', 'conflict', 'conflict', 'selection-withdrawn'],
    ],
  ];

  const cells = triggers.flatMap(([trigger, incoming, otherwise]) =>
    states.map(([state, current, open], index) => [trigger, state, otherwise[index]!, current, incoming, open] as const),
  );
  const outcomeOf = (decision: Decision) => (decision.kind === 'apply' ? decision.change : decision.kind === 'reject' ? decision.refusal : decision.kind);

  it.each(cells)('a revoked bundle carrying %s, in state %s (else: %s), is the cancellation alone', (_trigger, _state, otherwise, current, incoming, open) => {
    expect(incoming.status).toBe('active');
    expect(outcomeOf(decide(current, incoming))).toBe(otherwise);

    expect(decide(current, { ...incoming, status: 'revoked' })).toEqual({
      kind: 'apply',
      change: 'revoked',
      // The bundle's intent is not applied, and no clinic is selected.
      next: { status: 'revoked', intent: current.intent, selectedClinicIk: null },
      // Only the open Tasks, each cancelled, its businessStatus kept; no clinic is sent this version.
      tasks: open.map((clinicIk) => ({
        clinicIk,
        taskId: `task-${clinicIk}`,
        status: 'cancelled',
        clearBusinessStatus: false,
        send: false,
        action: 'cancelled',
      })),
    });
  });
});

describe('answerTask', () => {
  const request = { status: 'active' as const, intent: 'proposal' as const, selectedClinicIk: null };

  it.each([
    ['accepted', 'accepted'],
    ['declined', 'rejected'],
    ['query', 'on-hold'],
    ['more-data-required', 'on-hold'],
  ] as const)('maps the answer %s to Task.status %s', (businessStatus, status) => {
    expect(answerTask(request, task(A), businessStatus)).toEqual({ kind: 'apply', status });
  });

  it('keeps the selected clinic in progress while the request is an order', () => {
    expect(answerTask({ status: 'active', intent: 'order', selectedClinicIk: A }, task(A, { status: 'in-progress' }), 'query')).toEqual({
      kind: 'apply',
      status: 'in-progress',
    });
  });

  it('refuses an answer to a cancelled Task or a revoked request', () => {
    expect(answerTask(request, task(A, { status: 'cancelled' }), 'accepted').kind).toBe('reject');
    expect(answerTask({ ...request, status: 'revoked' }, task(A), 'accepted').kind).toBe('reject');
  });
});

describe('withdrawAcceptance', () => {
  const lifted = {
    kind: 'apply',
    next: { status: 'active', intent: 'proposal', selectedClinicIk: null },
    task: { status: 'rejected', businessStatus: 'declined' },
  };

  it("lifts the selection: the request is a proposal again, the selected clinic's Task rejected with the answer declined", () => {
    const current = ordered();
    expect(withdrawAcceptance(current, current.tasks[0]!)).toEqual(lifted);
  });

  it('leaves the request as after the referrer withdrew: a later bundle reopens the cancelled clinics, and the clinic may accept and be selected again', () => {
    const current = ordered();
    const decision = withdrawAcceptance(current, current.tasks[0]!);
    if (decision.kind !== 'apply') throw new Error('refused');
    const after: RequestState = {
      ...current,
      ...decision.next,
      tasks: [task(A, { ...decision.task }), task(B, { status: 'cancelled', businessStatus: 'accepted' })],
    };
    expect(decide(after, submission({ performerIks: [B] }))).toMatchObject({
      kind: 'apply',
      change: 'supplemented',
      tasks: [
        { clinicIk: A, status: 'requested', clearBusinessStatus: false, send: true },
        { clinicIk: B, status: 'requested', clearBusinessStatus: true, send: true },
      ],
    });
    expect(answerTask(after, after.tasks[0]!, 'accepted')).toEqual({ kind: 'apply', status: 'accepted' });
    const accepted: RequestState = { ...after, tasks: [task(A, { status: 'accepted', businessStatus: 'accepted' }), after.tasks[1]!] };
    expect(decide(accepted, selection())).toMatchObject({ kind: 'apply', change: 'selected', next: { intent: 'order', selectedClinicIk: A } });
    // There is no selection left for the referrer to withdraw.
    expect(decide(after, withdrawal())).toMatchObject({ kind: 'reject', refusal: 'conflict' });
  });

  it('refuses it for a clinic that is not selected, a proposal, a cancelled Task, a revoked request, and a second time', () => {
    const current = ordered();
    expect(withdrawAcceptance(current, current.tasks[1]!).kind).toBe('reject');
    expect(withdrawAcceptance(proposal(), task(A, { status: 'accepted', businessStatus: 'accepted' })).kind).toBe('reject');
    expect(withdrawAcceptance({ ...current, status: 'revoked', selectedClinicIk: null }, task(A, { status: 'cancelled' })).kind).toBe('reject');
    expect(withdrawAcceptance({ ...current, status: 'revoked' }, current.tasks[0]!).kind).toBe('reject');
    const once = withdrawAcceptance(current, current.tasks[0]!);
    if (once.kind !== 'apply') throw new Error('refused');
    expect(withdrawAcceptance({ ...current, ...once.next }, task(A, once.task))).toEqual({
      kind: 'reject',
      diagnostics: 'this clinic is not selected for the request: only the selected clinic withdraws its acceptance',
    });
  });
});
