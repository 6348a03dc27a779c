import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchStack, type Stack } from '@bedrequest/stack';
import { waitFor } from '@bedrequest/testing';
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

/** Made by Prometheus itself for each scrape, not exported by anyone. */
const MADE_BY_PROMETHEUS = ['up'];

/**
 * Exported by RabbitMQ's rabbitmq_prometheus plugin, not by the stack: per queue (labels `vhost`,
 * `queue`) on the plugin's /metrics/per-object endpoint (port 15692). The services do not count
 * what waits in their queues; the broker does (alerts.yml says how to scrape it).
 */
const EXPORTED_BY_RABBITMQ = ['rabbitmq_queue_messages', 'rabbitmq_queue_messages_ready', 'rabbitmq_queue_messages_unacked', 'rabbitmq_queue_consumers'];

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
    expect(promtool('test', 'rules', 'alerts.test.yml')).toContain('SUCCESS');
  });

  it('alerts.test.yml has a firing and a silent case for every alert', () => {
    const { tests } = parse(readFileSync(join(monitoring, 'alerts.test.yml'), 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    const cases = tests.flatMap((test) =>
      (test.alert_rule_test ?? []).map(({ alertname, exp_alerts }) => `${alertname} ${exp_alerts?.length ? 'fires' : 'silent'}`),
    );
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
        .filter(([family]) => !exported.has(family) && !MADE_BY_PROMETHEUS.includes(family) && !EXPORTED_BY_RABBITMQ.includes(family))
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
