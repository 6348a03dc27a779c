import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClinicTaskSummary } from '@bedrequest/contracts';
import { root } from '../child-process';
import { planAnswer, waitKeyOf } from './decide';
import { readRules, type ClinicRule } from './rules';

const directory = mkdtempSync(join(tmpdir(), 'sandbox-rules-'));
let files = 0;
/** The rules file with `json` as its text. */
function rulesFile(json: unknown): string {
  const file = join(directory, `clinics-${(files += 1)}.json`);
  writeFileSync(file, typeof json === 'string' ? json : JSON.stringify(json));
  return file;
}

const clinic = (rules: unknown[], overrides: Record<string, unknown> = {}) => ({
  ik: '510000001',
  name: 'Sandbox-Klinik',
  departments: ['2300', '0300'],
  username: 'sandbox-clinic',
  rules,
  ...overrides,
});

describe('the rules file', () => {
  it('as shipped (tools/sandbox/clinics.json) holds five clinics, each with rules', async () => {
    const reading = await readRules(join(root, 'tools', 'sandbox', 'clinics.json'));
    expect('clinics' in reading && reading.clinics.map((each) => [each.ik, each.username, each.rules.length > 0])).toEqual([
      ['510000001', 'sandbox-orthopaedics', true],
      ['510000002', 'sandbox-query', true],
      ['510000003', 'sandbox-decline', true],
      ['510000004', 'sandbox-more-data', true],
      ['510000005', 'sandbox-late', true],
    ]);
  });

  it('fills in the defaults: every Task, at once, not waiting for the deadline', async () => {
    const reading = await readRules(rulesFile({ clinics: [clinic([{ answer: { businessStatus: 'declined' } }])] }));
    expect(reading).toEqual({ clinics: [clinic([{ when: {}, answer: { businessStatus: 'declined', afterSeconds: 0, afterDeadline: false } }])] });
  });

  it.each([
    [{ clinics: [clinic([{ answer: { businessStatus: 'maybe' } }])] }, /^clinic "sandbox-clinic" rules\[0\]\.answer\.businessStatus: .*"accepted"/],
    [
      { clinics: [clinic([{ when: { department: '2800' }, answer: { businessStatus: 'accepted' } }])] },
      /^clinic "sandbox-clinic" rules\[0\]\.when\.department: 2800 is not one of the clinic's departments \(2300, 0300\)$/,
    ],
    [
      { clinics: [clinic([{ when: { minDaysAhead: -1 }, answer: { businessStatus: 'accepted' } }])] },
      /^clinic "sandbox-clinic" rules\[0\]\.when\.minDaysAhead: /,
    ],
    [{ clinics: [clinic([{ answer: { businessStatus: 'accepted', afterSecond: 3 } }])] }, /^clinic "sandbox-clinic" rules\[0\]\.answer: .*afterSecond/],
    [{ clinics: [clinic([], { ik: '5100' })] }, /^clinic "sandbox-clinic" ik: an IK number of nine digits$/],
    [{ clinics: [clinic([]), clinic([], { ik: '510000002' })] }, /^clinic "sandbox-clinic" username: another clinic has username sandbox-clinic$/],
    [{ clinics: [{ ...clinic([]), username: 7 }] }, /^clinic 1 username: /],
    [{ clinics: [] }, /^clinics: /],
    ['{"clinics": [', /^not JSON: /],
  ])('names the clinic and the field of a problem in one line (%#)', async (json, problem) => {
    const reading = await readRules(rulesFile(json));
    expect('problem' in reading ? reading.problem : reading).toMatch(problem);
    expect('problem' in reading && reading.problem.includes('\n')).toBe(false);
  });

  it('says so when the file cannot be read', async () => {
    expect(await readRules(join(directory, 'missing.json'))).toEqual({ problem: 'cannot read it (ENOENT)' });
  });
});

describe('planning an answer', () => {
  const rule = (when: ClinicRule['when'], answer: Partial<ClinicRule['answer']> = {}): ClinicRule => ({
    when,
    answer: { businessStatus: 'accepted', afterSeconds: 0, afterDeadline: false, ...answer },
  });
  const task = (overrides: Partial<ClinicTaskSummary> = {}, request: Partial<ClinicTaskSummary['request']> = {}): ClinicTaskSummary => ({
    id: '3f9a12c0-0000-4000-8000-000000000001',
    status: 'requested',
    authoredOn: '2026-12-07T09:00:00.000Z',
    lastModified: '2026-12-07T09:00:00.000Z',
    version: 1,
    request: { status: 'active', intent: 'proposal', requesterIk: '260000001', departmentCode: '2300', occurrenceDate: '2026-12-14', ...request },
    patient: { dataLevel: 'complete' },
    ...overrides,
  });
  // 23:30 in Berlin on 7 December: still the 7th there, the 7th in UTC too (22:30).
  const now = new Date('2026-12-07T22:30:00Z');

  it('takes the first rule that holds, and none when none holds', () => {
    const rules = [rule({ department: '0300' }, { note: 'cardiology' }), rule({ department: '2300' }, { businessStatus: 'declined' })];
    expect(planAnswer(rules, task(), now)).toEqual({ rule: 1, businessStatus: 'declined', dueAt: Date.parse('2026-12-07T09:00:00.000Z') });
    expect(planAnswer(rules, task({}, { departmentCode: '2800' }), now)).toBeUndefined();
  });

  it('counts the days ahead from today in Berlin, and never matches a request without a date', () => {
    const atLeastAWeek = [rule({ minDaysAhead: 7 })];
    expect(planAnswer(atLeastAWeek, task({}, { occurrenceDate: '2026-12-14' }), now)?.rule).toBe(0);
    expect(planAnswer(atLeastAWeek, task({}, { occurrenceDate: '2026-12-13' }), now)).toBeUndefined();
    // 23:30 UTC is already the 8th in Berlin: the 14th is six days ahead.
    expect(planAnswer(atLeastAWeek, task({}, { occurrenceDate: '2026-12-14' }), new Date('2026-12-07T23:30:00Z'))).toBeUndefined();
    expect(planAnswer(atLeastAWeek, task({}, { occurrenceDate: undefined }), now)).toBeUndefined();
  });

  it('tells a first answer from one after a supplement or documents by the answer the Task holds', () => {
    const rules = [rule({ asked: 'first' }, { businessStatus: 'query' }), rule({ asked: 'again' })];
    expect(planAnswer(rules, task(), now)?.businessStatus).toBe('query');
    expect(planAnswer(rules, task({ businessStatus: 'query', version: 2 }), now)?.businessStatus).toBe('accepted');
  });

  it('waits afterSeconds from when the Task began to wait, or from its deadline; a Task without a deadline skips such a rule', () => {
    const late = [rule({}, { afterDeadline: true, afterSeconds: 60 }), rule({}, { businessStatus: 'declined', afterSeconds: 30 })];
    expect(planAnswer(late, task({ deadline: '2026-12-09T09:00:00.000Z' }), now)).toMatchObject({ rule: 0, dueAt: Date.parse('2026-12-09T09:01:00.000Z') });
    expect(planAnswer(late, task(), now)).toMatchObject({ rule: 1, dueAt: Date.parse('2026-12-07T09:00:30.000Z') });
  });

  it('keys a waiting period by the Task, its version and the documents that reopened it', () => {
    expect(waitKeyOf(task())).not.toBe(waitKeyOf(task({ version: 2 })));
    expect(waitKeyOf(task())).not.toBe(waitKeyOf(task({ documentsSuppliedAt: '2026-12-07T10:00:00.000Z' })));
    expect(waitKeyOf(task())).toBe(waitKeyOf(task({ lastModified: '2026-12-09T09:00:30.000Z' })));
  });
});
