import { Pool } from 'pg';
import { startE2eStack, type E2eStack } from './e2e-stack';

/**
 * Deep pages of what a party may see, through the public API (docs/api.md, "Paging"): `_offset`
 * goes no further than 10,000, and the `next` link of a page at that depth pages on by `_cursor`,
 * which the gateway passes to intake like any parameter of the search, so that following `next`
 * never meets a 400. The AuditEvent search counts only on `_total=accurate`. The rows are written
 * straight into intake's tables of the stack (the API would take minutes to make 10,000 Tasks).
 */
const ROWS = 10_150;
const CLINIC = '518200001';
const FHIR_BASE = 'https://deep-hospital.example/fhir';
const IDENTIFIER = `${FHIR_BASE}/ServiceRequest/deep`;

interface Searchset {
  total?: number;
  link: { relation: string; url: string }[];
  entry?: unknown[];
}
interface OperationOutcome {
  issue: { code: string; diagnostics: string; expression?: string[] }[];
}

/** The `sub` of an access token: the party the access policy sees. */
const subOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;

describe('deep pages through the public API', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Reha-Klinik Tiefe', ['2300']);
    await stack.createReferrer('deep-referrer', ['261820001'], FHIR_BASE);
    await stack.createClinicUser('deep-clinic', CLINIC);
    [referrer, clinic] = [await stack.login('deep-referrer'), await stack.login('deep-clinic')];
    const pool = new Pool({ connectionString: stack.env.DATABASE_URL, max: 1 });
    const t = (name: string) => `"${stack.env.INTAKE_DB_SCHEMA}".${name}`;
    try {
      // The referrer's request naming ROWS clinics, and ROWS erased requests of another referrer, each with a Task of CLINIC.
      await pool.query(
        `INSERT INTO ${t('admission_request')} (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
         VALUES (gen_random_uuid(), $1, $2, '261820001', 'active', 'proposal', 1, 'hash', now())`,
        [IDENTIFIER, subOf(referrer)],
      );
      await pool.query(
        `INSERT INTO ${t('clinic_task')} (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
         SELECT gen_random_uuid(), r.id, r.referrer_party_id, (518300000 + n)::text, 'requested', 1, now(), now() FROM ${t('admission_request')} r, generate_series(1, $1::int) n WHERE r.identifier = $2`,
        [ROWS, IDENTIFIER],
      );
      await pool.query(
        `WITH requests AS (
           INSERT INTO ${t('admission_request')} (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
           SELECT gen_random_uuid(), 'https://other.example/fhir/ServiceRequest/' || n, 'other-referrer', '261820002', 'revoked', 'proposal', 1, 'hash', now()
             FROM generate_series(1, $1::int) n RETURNING id),
         erased AS (INSERT INTO ${t('request_erasure')} (request_id, erased_at, reason, versions, documents) SELECT id, now(), 'retention', 1, 0 FROM requests)
         INSERT INTO ${t('clinic_task')} (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
         SELECT gen_random_uuid(), id, 'other-referrer', $2, 'cancelled', 1, now(), now() FROM requests`,
        [ROWS, CLINIC],
      );
    } finally {
      await pool.end();
    }
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const get = <T>(path: string, token: string) => stack.api<T>('GET', path, { token });
  /** The path and query of a `next` link, absolute (FHIR) or relative to the list (`?…`). */
  const pathOf = (next: string, list = '/api/v1/clinic/tasks') => (next.startsWith('?') ? `${list}${next}` : new URL(next).pathname + new URL(next).search);
  const nextOf = (bundle: Searchset) => bundle.link.find((link) => link.relation === 'next')?.url;

  it('pages the Task search past _offset=10000 by the cursor of its next link, and refuses _offset=10001 naming _lastUpdated', async () => {
    const deep = await get<Searchset>('/api/v2/fhir/Task?_count=100&_offset=10000', referrer);
    expect([deep.status, deep.body.total, deep.body.entry?.length]).toEqual([200, ROWS, 100]);
    const next = nextOf(deep.body)!;
    expect(new URL(next).searchParams.has('_offset')).toBe(false);
    expect(new URL(next).searchParams.get('_count')).toBe('100');
    const last = await get<Searchset>(pathOf(next), referrer);
    expect([last.status, last.body.total, last.body.entry?.length, nextOf(last.body)]).toEqual([200, ROWS, ROWS - 10_100, undefined]);

    const refused = await get<OperationOutcome>('/api/v2/fhir/Task?_offset=10001', referrer);
    expect(refused.status).toBe(400);
    expect(refused.body.issue).toEqual([
      expect.objectContaining({ code: 'invalid', expression: ['_offset'], diagnostics: expect.stringMatching(/next link.*_lastUpdated/) }),
    ]);
  });

  it("pages a clinic's list past _offset=10000 by its next, which the gateway lets through", async () => {
    const deep = await get<{ total: number; items: unknown[]; next?: string }>('/api/v1/clinic/tasks?_count=100&_offset=10000', clinic);
    expect([deep.status, deep.body.total, deep.body.items.length]).toEqual([200, ROWS, 100]);
    expect(deep.body.next).toMatch(/^\?_count=100&_cursor=[A-Za-z0-9_-]+$/);
    const last = await get<{ items: unknown[]; next?: string }>(pathOf(deep.body.next!), clinic);
    expect([last.status, last.body.items.length, last.body.next]).toEqual([200, ROWS - 10_100, undefined]);
    const refused = await get<{ error: string; message: string }>('/api/v1/clinic/tasks?_offset=10001', clinic);
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
  });

  it('counts the AuditEvent search only on _total=accurate', async () => {
    const entity = `entity=${encodeURIComponent(IDENTIFIER)}`;
    const plain = await get<Searchset>(`/api/v2/fhir/AuditEvent?${entity}`, referrer);
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('total');
    const counted = await get<Searchset>(`/api/v2/fhir/AuditEvent?${entity}&_total=accurate`, referrer);
    expect(counted.body.total).toBe(plain.body.entry?.length);
    const refused = await get<OperationOutcome>('/api/v2/fhir/AuditEvent?_offset=10001', referrer);
    expect([refused.status, refused.body.issue[0]?.expression]).toEqual([400, ['_offset']]);
  });
});
