import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { parseAllDocuments } from 'yaml';
import { findMigrationsDir } from '@bedrequest/persistence';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
// The statement of the notifier's gauge webhook_deliveries_due: what the scaler must count too.
import { DeliveryRepository } from '../../../apps/notifier/src/delivery/delivery.repository';
import { Prisma } from '../../../apps/notifier/src/generated/prisma/client';
import { notifierTables } from '../../../apps/notifier/src/persistence/database';
import { provisionPlan } from './plan';
import { provisionDatabase, removeDatabasePrincipals } from './postgres';

/**
 * KEDA reads the notifier's backlog (docs/operations.md, "Provisioning") as a role of its own that
 * may SELECT one view of the notifier's schema and nothing else: not the deliveries themselves, no
 * other table, view, sequence or schema, and it creates nothing. On the real database, with the
 * query the ScaledObject runs (deploy/base/services/notifier.yaml).
 */
const env = testEnvironment();
const namespace = uniqueName('keda');
const plan = provisionPlan(
  {
    AMQP_NAMESPACE: namespace,
    AUTH_DB_SCHEMA: `${namespace}_auth`,
    INTAKE_DB_SCHEMA: `${namespace}_intake`,
    ROUTING_DB_SCHEMA: `${namespace}_routing`,
    NOTIFIER_DB_SCHEMA: `${namespace}_notifier`,
  },
  { generatePasswords: true },
);
const migrationsDirOf = (service: string) => findMigrationsDir(`${__dirname}/../../../apps/${service}/src/persistence`, service);
const notifier = plan.database.find((principal) => principal.service === 'notifier')!;
const schema = notifier.schema;

/** The ScaledObject's query, on this test's schema in place of the production one it names. */
function scalerQuery(): { query: string; userName: string } {
  const documents = parseAllDocuments(readFileSync(join(__dirname, '..', '..', '..', 'deploy', 'base', 'services', 'notifier.yaml'), 'utf8'));
  const scaled = documents.map((document) => document.toJS() as { kind?: string; spec?: { triggers: { metadata: Record<string, string> }[] } });
  const [trigger] = scaled.find((object) => object.kind === 'ScaledObject')!.spec!.triggers;
  const { query, userName } = trigger!.metadata as { query: string; userName: string };
  return { query: query.replaceAll('"notifier".', `"${schema}".`), userName };
}

async function as<T>(user: string, password: string, work: (client: Client) => Promise<T>): Promise<T> {
  const url = new URL(env.databaseUrl);
  url.username = encodeURIComponent(user);
  url.password = encodeURIComponent(password);
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await provisionDatabase(env.databaseUrl, plan.database, migrationsDirOf);
}, 120_000);

afterAll(async () => {
  await removeDatabasePrincipals(env.databaseUrl, plan.database);
}, 60_000);

describe("KEDA's database role", () => {
  const reader = () => {
    const found = (notifier.readers ?? []).find((entry) => entry.name === 'keda');
    if (!found) throw new Error('the plan provisions no reader for KEDA');
    return found;
  };

  it("is the user the ScaledObject logs in as (the namespace's), and may read the backlog's view alone", () => {
    const production = provisionPlan({}, { generatePasswords: true }).database.find((principal) => principal.service === 'notifier')!;
    expect(scalerQuery().userName).toBe(production.readers.find((entry) => entry.name === 'keda')?.role);
    expect(reader().role).toBe(`${namespace}_keda`);
    expect(reader().views).toEqual(['delivery_backlog']);
  });

  it("counts with the scaler's query what the notifier's gauge counts: the deliveries due now and not taken", async () => {
    const admin = new Client({ connectionString: env.databaseUrl });
    await admin.connect();
    try {
      const subscription = '00000000-0000-4000-8000-00000000000a';
      await admin.query(
        `INSERT INTO "${schema}".subscription (id, party_id, event_type, callback_url, sealed_secret, status)
         VALUES ($1, 'referrer-1', 'admission.response', 'https://example.org/hook', '\\x00', 'active')`,
        [subscription],
      );
      // Due: pending and due, pending with an expired lease, and two more pending and due. Not due:
      // one waiting for its next attempt, one leased by a worker, one delivered, one given up.
      const rows: [status: string, nextAttempt: string | null, leasedUntil: string | null][] = [
        ['pending', "now() - interval '1 minute'", null],
        ['pending', "now() - interval '1 minute'", "now() - interval '1 second'"],
        ['pending', 'now()', null],
        ['pending', "now() - interval '1 hour'", null],
        ['pending', "now() + interval '1 minute'", null],
        ['pending', "now() - interval '1 minute'", "now() + interval '30 seconds'"],
        ['delivered', null, null],
        ['failed', null, null],
      ];
      for (const [index, [status, nextAttempt, leasedUntil]] of rows.entries()) {
        await admin.query(
          `INSERT INTO "${schema}".delivery (event_id, subscription_id, sequence, event_type, request_identifier, occurred_at, sealed_data, status, next_attempt_at, leased_until)
           VALUES (gen_random_uuid(), $1, $2, 'admission.response', 'request-1', now(), '\\x00', $3, ${nextAttempt ?? 'NULL'}, ${leasedUntil ?? 'NULL'})`,
          [subscription, index + 1, status],
        );
      }
      let gauge = '';
      const prisma = {
        $queryRaw: (strings: TemplateStringsArray, ...values: Prisma.Sql[]) => {
          gauge = Prisma.sql(strings, ...values).sql;
          return Promise.resolve([{ due: 0 }]);
        },
      };
      await new DeliveryRepository(prisma as never, notifierTables(schema), {} as never).countDue();
      const { rows: counted } = await admin.query<{ due: number }>(gauge);
      expect(counted).toEqual([{ due: 4 }]);

      const { rows: scaled } = await as(reader().role, reader().password, (client) => client.query(scalerQuery().query));
      expect(scaled).toEqual(counted);
    } finally {
      await admin.end();
    }
  });

  it('reads neither the deliveries nor any other table, view or sequence of any schema, and creates nothing', async () => {
    await as(reader().role, reader().password, async (client) => {
      expect((await client.query('SELECT current_user')).rows[0].current_user).toBe(reader().role);
      await expect(client.query(`SELECT count(*) FROM "${schema}".delivery`)).rejects.toThrow('permission denied for table delivery');
      await expect(client.query(`SELECT callback_url FROM "${schema}".subscription`)).rejects.toThrow('permission denied for table subscription');
      await expect(client.query(`SELECT "${schema}".request_erased('referrer-1', 'request-1')`)).rejects.toThrow('permission denied for table request_erasure');
      for (const other of plan.database.filter((principal) => principal.service !== 'notifier')) {
        await expect(client.query(`SELECT count(*) FROM "${other.schema}"._migrations`)).rejects.toThrow(`permission denied for schema ${other.schema}`);
      }
      await expect(client.query(`CREATE TABLE "${schema}".intruder (id int)`)).rejects.toThrow(`permission denied for schema ${schema}`);
      await expect(client.query(`CREATE VIEW public.intruder AS SELECT 1`)).rejects.toThrow('permission denied for schema public');

      // Every right it holds on a relation of the database, and on a schema, outside the system's catalogs.
      const { rows: relations } = await client.query(
        `SELECT n.nspname AS schema, c.relname AS name, p.privilege
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          CROSS JOIN unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) AS p(privilege)
          WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
            AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND has_table_privilege(c.oid, p.privilege)`,
      );
      expect(relations).toEqual([{ schema, name: 'delivery_backlog', privilege: 'SELECT' }]);
      // USAGE on public is every role's (PostgreSQL's default grant to PUBLIC); nothing there is readable (above).
      const { rows: schemas } = await client.query(
        `SELECT n.nspname AS schema, p.privilege FROM pg_namespace n CROSS JOIN unnest(ARRAY['USAGE', 'CREATE']) AS p(privilege)
          WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'public') AND n.nspname NOT LIKE 'pg\\_%' AND has_schema_privilege(n.oid, p.privilege)`,
      );
      expect(schemas).toEqual([{ schema, privilege: 'USAGE' }]);
      const { rows: owned } = await client.query(
        `SELECT relname AS name FROM pg_class WHERE relowner = current_user::regrole
         UNION ALL SELECT rolname FROM pg_roles WHERE rolname <> current_user AND pg_has_role(current_user, oid, 'MEMBER')`,
      );
      expect(owned).toEqual([]);
    });
  });

  it('goes with the schema when an isolated stack removes its principals', async () => {
    const other = provisionPlan({ AMQP_NAMESPACE: `${namespace}x`, NOTIFIER_DB_SCHEMA: `${namespace}x_notifier` }, { generatePasswords: true }).database.filter(
      (principal) => principal.service === 'notifier',
    );
    await provisionDatabase(env.databaseUrl, other, migrationsDirOf);
    await removeDatabasePrincipals(env.databaseUrl, other);
    const admin = new Client({ connectionString: env.databaseUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query('SELECT rolname FROM pg_roles WHERE rolname = ANY($1)', [
        other.flatMap((principal) => principal.readers.map((r) => r.role)),
      ]);
      expect(rows).toEqual([]);
      expect(other[0]!.readers).toHaveLength(1);
    } finally {
      await admin.end();
    }
  }, 60_000);
});
