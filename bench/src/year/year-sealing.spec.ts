import { taskPlaintexts } from './year-sealing';

const created = new Date('2026-03-02T08:00:00Z');
const task = {
  id: 't-1',
  status: 'requested',
  business_status: null,
  answered_at: null,
  auto_answer: false,
  clinic_user: 'u-1',
  created,
  supplemented_at: null,
  cancelled_at: null,
  chosen: false,
  selected_at: null,
  sent_version: 1,
};

describe("a seeded Task's notes and history", () => {
  it('an unanswered Task has no notes and the one request of its clinic in its history', () => {
    expect(taskPlaintexts(task)).toEqual({
      notes: [],
      history: [{ kind: 'request', at: created.toISOString(), action: 'answer-requested', status: 'requested', version: 1 }],
    });
  });

  it("the chosen clinic's answer is its note, and the selection follows it", () => {
    const answeredAt = new Date('2026-03-03T09:00:00Z');
    const selectedAt = new Date('2026-03-05T09:00:00Z');
    const { notes, history } = taskPlaintexts({
      ...task,
      business_status: 'accepted',
      answered_at: answeredAt,
      chosen: true,
      selected_at: selectedAt,
      sent_version: 2,
    });
    expect(notes).toEqual([expect.objectContaining({ time: answeredAt.toISOString(), author: { source: 'clinic', user: 'u-1', name: 'Aufnahme' } })]);
    expect(history.map((entry) => entry.kind)).toEqual(['request', 'answer', 'request']);
    expect(history.at(-1)).toEqual({ kind: 'request', at: selectedAt.toISOString(), action: 'selected', status: 'in-progress', version: 2 });
  });

  it('an automatic answer is authored by the service, and a cancelled Task ends with its cancellation', () => {
    const at = new Date('2026-03-02T08:00:05Z');
    const cancelledAt = new Date('2026-03-06T10:00:00Z');
    const { notes, history } = taskPlaintexts({ ...task, business_status: 'declined', answered_at: at, auto_answer: true, cancelled_at: cancelledAt });
    expect(notes[0]?.author).toEqual({ source: 'automatic' });
    expect(history.at(-1)).toEqual({ kind: 'request', at: cancelledAt.toISOString(), action: 'cancelled', status: 'cancelled' });
  });
});
