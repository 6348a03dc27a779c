import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { launchStack, type Stack } from '@bedrequest/stack';

/**
 * The alert rules of deploy/monitoring: promtool checks them and runs their tests (a firing and a
 * silent case per alert), and every metric they name is one the running stack exports.
 */
const monitoring = join(__dirname, '..', 'deploy', 'monitoring');

/** Metrics Prometheus makes itself rather than scrapes. */
const PROMETHEUS_OWN = new Set(['up']);

function promtool(...args: string[]): string {
  try {
    return execFileSync('promtool', args, { cwd: monitoring, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: string; stdout?: string; stderr?: string };
    if (code === 'ENOENT') throw new Error('promtool is missing: apt-get install prometheus (Debian ships promtool with it)');
    throw new Error(`promtool ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

/** The metric families the rules' expressions name (a selector's name before `{`), without histogram suffixes. */
function metricsNamedIn(rulesFile: string): string[] {
  const rules = parse(readFileSync(join(monitoring, rulesFile), 'utf8')) as { groups: { rules: { expr: string }[] }[] };
  const names = rules.groups.flatMap((group) =>
    group.rules.flatMap((rule) => [...rule.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((match) => match[1]!)),
  );
  return [...new Set(names.map((name) => name.replace(/_(bucket|sum|count)$/, '')))].filter((name) => !PROMETHEUS_OWN.has(name)).sort();
}

describe('the alert rules', () => {
  it('pass promtool: valid, and each alert fires in its firing case and stays silent in its silent one', () => {
    expect(promtool('check', 'rules', 'alerts.yml')).toContain('SUCCESS');
    expect(promtool('test', 'rules', 'alerts.test.yml')).toContain('SUCCESS');
  });

  describe('against a running stack', () => {
    let stack: Stack | undefined;

    beforeAll(async () => {
      stack = await launchStack({ mode: 'in-process', isolate: 'metrics', env: { LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '2' } });
    }, 180_000);

    afterAll(async () => {
      await stack?.stop();
    }, 60_000);

    it('name only metrics the services export', async () => {
      const exported = new Set<string>();
      const gaugeValues = new Map<string, number>();
      for (const instance of stack!.instances()) {
        const response = await fetch(`${instance.probeUrl}/metrics`);
        expect({ instance: instance.name, status: response.status }).toEqual({ instance: instance.name, status: 200 });
        const text = await response.text();
        for (const match of text.matchAll(/^# TYPE (\S+) (\S+)/gm)) {
          exported.add(match[1]!);
          // A gauge read when scraped (the outbox's age, the due deliveries) must have read a value.
          const sample = match[2] === 'gauge' ? new RegExp(`^${match[1]}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text) : null;
          if (sample) gaugeValues.set(match[1]!, Number(sample[1]));
        }
      }
      const named = metricsNamedIn('alerts.yml');
      expect(named.length).toBeGreaterThanOrEqual(7);
      expect(named.filter((name) => !exported.has(name))).toEqual([]);
      expect({ outbox: gaugeValues.get('outbox_oldest_message_age_seconds'), due: gaugeValues.get('webhook_deliveries_due') }).toEqual({ outbox: 0, due: 0 });
    });
  });
});
