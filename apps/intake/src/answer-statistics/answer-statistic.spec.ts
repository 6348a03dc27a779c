import { answerStatisticOf, type AnsweredTask } from './answer-statistic';

const sent = new Date('2026-12-01T08:00:00.000Z');
const task: AnsweredTask = { id: 't1', clinicIk: '510000001', authoredOn: sent, departmentCode: '2300', history: [] };
const clinic = { source: 'clinic', user: 'u1' } as const;

describe('answerStatisticOf', () => {
  it("makes a row of the clinic's first answer: seconds from the sending, an acceptance as accepted", () => {
    expect(answerStatisticOf(task, 'accepted', clinic, new Date('2026-12-01T10:30:00.400Z'))).toEqual({
      taskId: 't1',
      clinicIk: '510000001',
      departmentCode: '2300',
      answeredAt: new Date('2026-12-01T10:30:00.400Z'),
      seconds: 9000,
      accepted: true,
    });
    expect(answerStatisticOf(task, 'query', clinic, new Date('2026-12-01T08:00:01.000Z'))).toMatchObject({ seconds: 1, accepted: false });
  });

  it('makes none for an automatic answer, a Task answered before, or a Task without its department', () => {
    const now = new Date('2026-12-02T08:00:00.000Z');
    expect(answerStatisticOf(task, 'accepted', { source: 'automatic' }, now)).toBeUndefined();
    const answeredBefore = {
      ...task,
      history: [{ kind: 'answer' as const, at: sent.toISOString(), businessStatus: 'accepted' as const, author: { source: 'automatic' as const } }],
    };
    expect(answerStatisticOf(answeredBefore, 'declined', clinic, now)).toBeUndefined();
    expect(answerStatisticOf({ ...task, departmentCode: null }, 'declined', clinic, now)).toBeUndefined();
  });
});
