// The state of a fault's stack for a failure's message: each instance's readiness and last lines,
// each queue's counts, and everything each instance wrote saved under tmp/faults.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, type Instance, type Stack } from '@bedrequest/stack';

/** Lines of each instance's output a failure's message quotes. */
const LAST_LINES = 8;

/** Every service process still running and answering /health/ready with 200. */
export async function serviceHealth(stack: Stack): Promise<Record<string, number | 'exited'>> {
  const entries = await Promise.all(
    stack.instances().map(async (instance) => {
      if (!stack.isRunning(instance.name)) return [instance.name, 'exited'] as const;
      const status = await fetch(`${instance.probeUrl}/health/ready`, { signal: AbortSignal.timeout(5_000) }).then(
        (response) => response.status,
        () => 0,
      );
      return [instance.name, status] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * The stack's state for a failure's message (FaultFixture.explainingFailure): each instance's
 * readiness and the last lines it wrote, each queue's ready, dead-lettered and consuming count
 * (`queueDepth`), and where everything each instance wrote is saved (saveServiceLogs).
 */
export async function describeStack(
  stack: Stack,
  label: string,
  queueDepth: (key: 'intake' | 'routing' | 'notifier') => Promise<{ ready: number; deadLettered: number; consumers: number }>,
): Promise<string> {
  const health = await serviceHealth(stack);
  const instances = stack.instances();
  const folder = saveServiceLogs(`${label}-${stack.namespace}`, instances, `stack state asked for at ${new Date().toISOString()}`);
  const queues = await Promise.all(
    (['intake', 'routing', 'notifier'] as const).map(async (key) => {
      const { ready, deadLettered, consumers } = await queueDepth(key);
      return `${key}: ${ready} ready, ${deadLettered} dead-lettered, ${consumers} consuming`;
    }),
  );
  const lastLines = instances.map((instance) => {
    const lines = instance.output().trimEnd().split('\n').filter(Boolean).slice(-LAST_LINES);
    const written = lines.map((line) => `    ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`).join('\n');
    return `  ${instance.name} (ready: ${health[instance.name]}):${written ? `\n${written}` : ' wrote nothing'}`;
  });
  return [`stack ${stack.namespace} then:`, `  queues: ${queues.join('; ')}`, ...lastLines, folder ? `  everything they wrote: ${folder}` : '']
    .filter(Boolean)
    .join('\n');
}

/**
 * What every instance wrote, one file per instance under tmp/faults/<label>-logs with `header` at
 * the top; the folder, or undefined when there was nothing.
 */
export function saveServiceLogs(label: string, instances: readonly Instance[], header: string): string | undefined {
  if (instances.length === 0) return undefined;
  const folder = join(root, 'tmp', 'faults', `${label}-logs`);
  mkdirSync(folder, { recursive: true });
  for (const instance of instances) writeFileSync(join(folder, `${instance.name}.log`), `${header}\n\n${instance.output()}`);
  return folder;
}
