import { preparedStatementName } from './prisma-adapter';

describe('preparedStatementName', () => {
  it('names a statement with scalar parameters, the same name for the same text', () => {
    const sql = 'SELECT * FROM "intake"."clinic_task" WHERE id = $1';
    const name = preparedStatementName(sql);
    expect(name).toMatch(/^s_[A-Za-z0-9_-]{27}$/);
    expect(preparedStatementName(sql)).toBe(name);
    expect(preparedStatementName(`${sql} AND status = $2`)).not.toBe(name);
  });

  it('keeps no statement with array parameters, so that each call is planned for its arrays', () => {
    expect(preparedStatementName('SELECT * FROM "notifier"."delivery" WHERE event_id = ANY($1::uuid[])')).toBeUndefined();
  });
});
