import { explainable, planScans, sequentialScans, type PlanNode } from './statement-capture';

const plan: PlanNode = {
  'Node Type': 'Nested Loop',
  Plans: [
    { 'Node Type': 'Index Only Scan', 'Relation Name': 'admission_request', Schema: 'intake', 'Index Name': 'admission_request_identifier_key' },
    { 'Node Type': 'Seq Scan', 'Relation Name': 'clinic_task', Schema: 'intake', Plans: [] },
    { 'Node Type': 'Hash', Plans: [{ 'Node Type': 'Seq Scan', 'Relation Name': 'clinic', Schema: 'routing' }] },
  ],
};

describe('reading plans', () => {
  it('finds every scan of a table or index, however deep', () => {
    expect(planScans(plan).map((scan) => `${scan.node} ${scan.relation}`)).toEqual([
      'Index Only Scan admission_request',
      'Seq Scan clinic_task',
      'Seq Scan clinic',
    ]);
  });

  it('flags a sequential scan of a growing table of the schemas asked about, and only that', () => {
    const growing = new Set(['admission_request', 'clinic_task']);
    expect(sequentialScans(planScans(plan), growing, new Set(['intake'])).map((scan) => scan.relation)).toEqual(['clinic_task']);
    expect(sequentialScans(planScans(plan), growing, new Set(['other']))).toEqual([]);
    expect(sequentialScans(planScans(plan), new Set(['clinic']), new Set(['routing'])).map((scan) => scan.relation)).toEqual(['clinic']);
  });

  it('asks plans of data statements only', () => {
    expect(['SELECT 1', 'BEGIN', 'SET LOCAL x = 1', 'DEALLOCATE ALL'].filter(explainable)).toEqual([]);
    expect(
      ['  WITH x AS (SELECT 1) SELECT * FROM x', 'select id from t', 'UPDATE t SET a = 1', 'DELETE FROM t', 'INSERT INTO t VALUES (1)'].every(explainable),
    ).toBe(true);
  });
});
