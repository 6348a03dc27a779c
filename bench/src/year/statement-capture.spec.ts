import { explainable, planScans, sequentialScans, unboundedReads, type PlanNode, type Scan } from './statement-capture';

const plan: PlanNode = {
  'Node Type': 'Nested Loop',
  Plans: [
    {
      'Node Type': 'Index Only Scan',
      'Relation Name': 'admission_request',
      Schema: 'intake',
      'Index Name': 'admission_request_identifier_key',
      'Index Cond': '(identifier = $1)',
    },
    { 'Node Type': 'Seq Scan', 'Relation Name': 'clinic_task', Schema: 'intake', Plans: [] },
    {
      'Node Type': 'ModifyTable',
      'Relation Name': 'mail_outbox',
      Plans: [
        {
          'Node Type': 'Bitmap Heap Scan',
          'Relation Name': 'mail_outbox',
          Plans: [{ 'Node Type': 'Bitmap Index Scan', 'Index Name': 'x', 'Index Cond': '(a < $1)' }],
        },
      ],
    },
    { 'Node Type': 'Hash', Plans: [{ 'Node Type': 'Seq Scan', 'Relation Name': 'clinic', Schema: 'routing' }] },
  ],
};

describe('reading plans', () => {
  it('finds every scan of a table or index, however deep', () => {
    expect(planScans(plan).map((scan) => `${scan.node} ${scan.relation ?? scan.index} ${scan.bounded ? 'bounded' : 'whole'}`)).toEqual([
      'Index Only Scan admission_request bounded',
      'Seq Scan clinic_task whole',
      'Bitmap Heap Scan mail_outbox bounded',
      'Bitmap Index Scan x bounded',
      'Seq Scan clinic whole',
    ]);
  });

  it('flags a sequential scan of a growing table of the schemas asked about, and only that', () => {
    const growing = new Set(['admission_request', 'clinic_task']);
    expect(sequentialScans(planScans(plan), growing, new Set(['intake'])).map((scan) => scan.relation)).toEqual(['clinic_task']);
    expect(sequentialScans(planScans(plan), growing, new Set(['other']))).toEqual([]);
    expect(sequentialScans(planScans(plan), new Set(['clinic']), new Set(['routing'])).map((scan) => scan.relation)).toEqual(['clinic']);
  });

  it('tells a table read whole for its size from one no index bounds the read of', () => {
    const whole: Scan[] = [
      { node: 'Seq Scan', relation: 'request_erasure', bounded: false },
      { node: 'Seq Scan', relation: 'mail_outbox', bounded: false },
      { node: 'Seq Scan', relation: 'outbox_message', bounded: false },
    ];
    const forced: Scan[] = [
      { node: 'Index Only Scan', relation: 'request_erasure', index: 'request_erasure_pkey', bounded: true },
      { node: 'Seq Scan', relation: 'mail_outbox', bounded: false },
      { node: 'Index Scan', relation: 'outbox_message', index: 'outbox_message_pkey', bounded: false },
    ];
    expect(unboundedReads(whole, forced)).toEqual(['mail_outbox', 'outbox_message']);
  });

  it('asks plans of data statements only', () => {
    expect(['SELECT 1', 'BEGIN', 'SET LOCAL x = 1', 'DEALLOCATE ALL'].filter(explainable)).toEqual([]);
    expect(
      ['  WITH x AS (SELECT 1) SELECT * FROM x', 'select id from t', 'UPDATE t SET a = 1', 'DELETE FROM t', 'INSERT INTO t VALUES (1)'].every(explainable),
    ).toBe(true);
  });
});
