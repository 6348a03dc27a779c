import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { launchStack, type Stack } from '@bedrequest/stack';
import { ownDatabase, waitFor } from '@bedrequest/testing';
import { parse, stringify } from 'yaml';
import { dashboardExpressions, metricFamilyOf, metricNamesIn, ruleExpressions } from './monitoring-expressions';

/**
 * deploy/monitoring as an SRE gets it: promtool accepts the alert rules and runs their tests (a
 * firing and a silent case per alert), the dashboard's queries are PromQL, and every metric the
 * rules and the dashboard name is one the running stack exports, or one listed below as made
 * elsewhere.
 */
const root = join(__dirname, '..', '..');
const monitoring = join(root, 'deploy', 'monitoring');
/** The rules' tests: minute by minute, and those whose windows span days, hour by hour. */
const RULE_TESTS = ['alerts.test.yml', 'alerts.days.test.yml'];

/** Made by Prometheus itself for each scrape, not exported by anyone. */
const MADE_BY_PROMETHEUS = ['up'];

/**
 * Exported by RabbitMQ's rabbitmq_prometheus plugin, not by the stack: per queue (labels `vhost`,
 * `queue`) on the plugin's /metrics/per-object endpoint (port 15692). The services do not count
 * what waits in their queues; the broker does (alerts.yml says how to scrape it).
 */
const EXPORTED_BY_RABBITMQ = ['rabbitmq_queue_messages', 'rabbitmq_queue_messages_ready', 'rabbitmq_queue_messages_unacked', 'rabbitmq_queue_consumers'];

/**
 * The queries CloudNativePG's exporter runs besides its defaults, in the infrastructure example: the
 * tables' rows, vacuums and sizes for the bloat alerts. It names each column that is not a label
 * `cnpg_<query>_<column>`.
 */
const POSTGRES_MONITORING = join(root, 'deploy', 'overlays', 'infrastructure-example', 'postgres-monitoring.yaml');
type MonitoringQueries = Record<string, { query: string; primary?: boolean; metrics: Record<string, { usage: string }>[] }>;
const postgresQueries = parse((parse(readFileSync(POSTGRES_MONITORING, 'utf8')) as { data: { queries: string } }).data.queries) as MonitoringQueries;
const columnsOf = (query: string) => postgresQueries[query]!.metrics.map((metric) => Object.keys(metric)[0]!);
const EXPORTED_BY_CLOUDNATIVEPG = Object.entries(postgresQueries).flatMap(([query, { metrics }]) =>
  metrics.flatMap((metric) =>
    Object.entries(metric)
      .filter(([, { usage }]) => usage !== 'LABEL')
      .map(([column]) => `cnpg_${query}_${column}`),
  ),
);

function promtool(...args: string[]): string {
  try {
    return execFileSync('promtool', args, { cwd: monitoring, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: string; stdout?: string; stderr?: string };
    if (code === 'ENOENT') throw new Error('promtool is missing: apt-get install prometheus (Debian ships promtool with it)');
    throw new Error(`promtool ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

/** Each metric family the expressions name, with where (file and alert or panel) it is named. */
function familiesNamedIn(files: Record<string, { name: string; expr: string }[]>): Map<string, string[]> {
  const families = new Map<string, string[]>();
  for (const [file, expressions] of Object.entries(files)) {
    for (const { name, expr } of expressions) {
      for (const family of metricNamesIn(expr).map(metricFamilyOf)) families.set(family, [...(families.get(family) ?? []), `${file} "${name}"`]);
    }
  }
  return families;
}

describe('deploy/monitoring', () => {
  const alerts = ruleExpressions(join(monitoring, 'alerts.yml'));
  const panels = dashboardExpressions(join(monitoring, 'dashboard.json'));
  const named = familiesNamedIn({ 'alerts.yml': alerts, 'dashboard.json': panels });

  it('alerts.yml passes promtool: valid, and each alert fires in its firing case and stays silent in its silent one', () => {
    expect(promtool('check', 'rules', 'alerts.yml')).toContain('SUCCESS');
    for (const tests of RULE_TESTS) expect(promtool('test', 'rules', tests)).toContain('SUCCESS');
  });

  it('its tests have a firing and a silent case for every alert', () => {
    const cases = RULE_TESTS.flatMap((file) => {
      const { tests } = parse(readFileSync(join(monitoring, file), 'utf8')) as {
        tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
      };
      return tests.flatMap((test) =>
        (test.alert_rule_test ?? []).map(({ alertname, exp_alerts }) => `${alertname} ${exp_alerts?.length ? 'fires' : 'silent'}`),
      );
    });
    expect([...new Set(cases)].sort()).toEqual(alerts.flatMap(({ name }) => [`${name} fires`, `${name} silent`]).sort());
  });

  it("dashboard.json's queries are PromQL promtool accepts, once Grafana's variables are filled in", () => {
    const rules = panels.map(({ expr }, index) => ({
      record: `dashboard:query_${index}`,
      expr: expr.replace(/\$__(?:rate_interval|interval|range)\b/g, '5m').replace(/\$\{?(\w+)\}?/g, 'value'),
    }));
    expect(rules.length).toBeGreaterThanOrEqual(20);
    const directory = mkdtempSync(join(tmpdir(), 'dashboard-'));
    try {
      writeFileSync(join(directory, 'dashboard.rules.yml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
      expect(promtool('check', 'rules', join(directory, 'dashboard.rules.yml'))).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('names every RabbitMQ metric it relies on in the list of those RabbitMQ exports, and no other', () => {
    expect(EXPORTED_BY_RABBITMQ.filter((family) => !named.has(family))).toEqual([]);
    expect([...named.keys()].filter((family) => family.startsWith('rabbitmq_') && !EXPORTED_BY_RABBITMQ.includes(family))).toEqual([]);
  });

  it("names only PostgreSQL metrics that the infrastructure example's exporter queries make", () => {
    const cloudNativePg = [...named.keys()].filter((family) => family.startsWith('cnpg_'));
    expect(cloudNativePg.length).toBeGreaterThan(0);
    expect(cloudNativePg.filter((family) => !EXPORTED_BY_CLOUDNATIVEPG.includes(family))).toEqual([]);
  });

  describe("the exporter's queries of postgres-monitoring.yaml", () => {
    let database: Awaited<ReturnType<typeof ownDatabase>> | undefined;

    afterAll(async () => {
      await database?.drop();
    });

    it("run as CloudNativePG runs them (a pg_monitor role, its search_path) and count a table's rows and dead rows", async () => {
      database = await ownDatabase('monitoring');
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        // Left alone by autovacuum, so that its dead rows stay to be counted.
        await client.query('CREATE SCHEMA watched');
        await client.query('CREATE TABLE watched.churn (id int PRIMARY KEY, note text) WITH (autovacuum_enabled = false)');
        await client.query("INSERT INTO watched.churn SELECT g, 'note' FROM generate_series(1, 20000) g");
        await client.query('DELETE FROM watched.churn WHERE id <= 5000');
        await client.query('SELECT pg_stat_force_next_flush()');
        // The role and its rights exist only inside this transaction.
        await client.query('BEGIN');
        await client.query('CREATE ROLE monitoring_probe NOLOGIN IN ROLE pg_monitor');
        await client.query('SET LOCAL ROLE monitoring_probe');
        await client.query('SET LOCAL search_path = pg_catalog, public, pg_temp');
        const { rows, fields } = await client.query<Record<string, string | number>>(postgresQueries.pg_stat_user_tables!.query);
        await client.query('ROLLBACK');
        expect(fields.map((field) => field.name)).toEqual(columnsOf('pg_stat_user_tables'));
        const churn = rows.find((row) => row.schemaname === 'watched' && row.relname === 'churn');
        expect(churn).toMatchObject({ datname: new URL(database.url).pathname.slice(1) });
        const number = (column: string) => Number(churn?.[column]);
        expect({
          live: number('n_live_tup'),
          dead: number('n_dead_tup'),
          inserted: number('n_tup_ins'),
          deleted: number('n_tup_del'),
          autovacuumed: number('last_autovacuum'),
        }).toEqual({ live: 15000, dead: 5000, inserted: 20000, deleted: 5000, autovacuumed: 0 });
        expect(number('table_size_bytes')).toBeGreaterThan(8192);
        expect(number('index_size_bytes')).toBeGreaterThan(8192);
      } finally {
        await client.end();
      }
    });
  });

  describe('against a running stack that has taken a bundle', () => {
    let stack: Stack | undefined;
    /** Each instance's /metrics, once the bundle went through every queue. */
    const scrapes = new Map<string, string>();

    async function scrape(instance: string): Promise<string> {
      const response = await fetch(`${stack!.probeUrl(instance)}/metrics`, { headers: { connection: 'close' } });
      if (response.status !== 200) throw new Error(`/metrics of ${instance} answered ${response.status}`);
      return response.text();
    }

    beforeAll(async () => {
      stack = await launchStack({ mode: 'in-process', isolate: 'metrics', env: { LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '2' } });
      // The parties of docs/examples/admission-request.json, as `npm run seed:demo` makes them.
      const referrer = `metrics-referrer-${randomUUID().slice(0, 8)}`;
      await stack.admin('clinic', 'upsert', '--ik', '510000001', '--name', 'Reha-Klinik Am Waldsee', '--departments', '2300');
      await stack.admin('clinic', 'upsert', '--ik', '510000002', '--name', 'Fachklinik Bergblick', '--departments', '3100');
      await stack.admin(
        'user',
        'create',
        '--role',
        'referrer',
        '--username',
        referrer,
        '--password',
        `${referrer}-pw`,
        '--ik',
        '260000001',
        '--fhir-base',
        'https://demo-hospital.example/fhir',
      );
      const { accessToken } = await stack.login(referrer, `${referrer}-pw`);
      const posted = await fetch(`${stack.gatewayUrl}/api/v2/fhir/Bundle`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/fhir+json', connection: 'close' },
        body: readFileSync(join(root, 'docs', 'examples', 'admission-request.json')),
      });
      if (posted.status >= 400) throw new Error(`the bundle was refused: ${posted.status} ${await posted.text()}`);
      expect([201, 202]).toContain(posted.status);
      // The notifier hears of the verdict last (intake, then routing and the notifier): then every
      // queue's consumer, publisher and batch series exist.
      await waitFor(async () => /^messages_consumed_total\{[^}]*outcome="ack"/m.test(await scrape('notifier')), {
        timeoutMs: 30_000,
        what: 'the notifier to consume the verdict',
      });
      for (const instance of stack.instances()) scrapes.set(instance.name, await scrape(instance.name));
    }, 180_000);

    afterAll(async () => {
      await stack?.stop();
    }, 60_000);

    it('exports every metric family the alerts and the dashboard name', () => {
      const exported = new Set([...scrapes.values()].flatMap((text) => [...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((match) => match[1]!)));
      const missing = [...named]
        .filter(
          ([family]) =>
            !exported.has(family) &&
            !MADE_BY_PROMETHEUS.includes(family) &&
            !EXPORTED_BY_RABBITMQ.includes(family) &&
            !EXPORTED_BY_CLOUDNATIVEPG.includes(family),
        )
        .map(([family, where]) => `${family}, named in ${[...new Set(where)].join(', ')}`);
      expect(missing).toEqual([]);
      expect(EXPORTED_BY_RABBITMQ.filter((family) => exported.has(family))).toEqual([]);
    });

    it('labels the bundle POST as BedrequestBundlePostSlow selects it, and reads the outbox and backlog gauges when scraped', () => {
      expect(scrapes.get('gateway')).toMatch(
        /^http_request_duration_seconds_bucket\{(?=[^}]*method="POST")(?=[^}]*route="\/api\/v2\/fhir\/Bundle")(?=[^}]*status="\d{3}")[^}]*\} 1$/m,
      );
      const gauge = (instance: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(scrapes.get(instance) ?? '')?.[1]);
      // Seconds at most: the bundle's messages left the outboxes moments ago, or are leaving.
      const read = (value: number) => (Number.isFinite(value) && value >= 0 && value < 60 ? 'read' : value);
      expect({
        'intake outbox age': read(gauge('intake', 'outbox_oldest_message_age_seconds')),
        'routing outbox age': read(gauge('routing', 'outbox_oldest_message_age_seconds')),
        'deliveries due': read(gauge('notifier', 'webhook_deliveries_due')),
      }).toEqual({ 'intake outbox age': 'read', 'routing outbox age': 'read', 'deliveries due': 'read' });
    });
  });
});
