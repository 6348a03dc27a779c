import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU time spent by the processes of the stack, read from /proc (utime + stime, plus the time of
 * reaped children: a PostgreSQL backend that exits adds its time to the postmaster's cutime).
 * Infrastructure processes are found by name; the services by PID.
 */

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

export const INFRASTRUCTURE: Readonly<Record<string, readonly string[]>> = {
  postgresql: ['postgres'],
  rabbitmq: ['beam.smp', 'erl_child_setup', 'epmd', 'inet_gethost'],
  redis: ['redis-server'],
};

export type CpuSample = Record<string, number>;

function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [utime, stime, cutime, cstime] = [fields[11], fields[12], fields[13], fields[14]].map(Number) as [number, number, number, number];
    return ((utime + stime + cutime + cstime) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0; // gone meanwhile
  }
}

function commandOf(pid: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** CPU milliseconds so far of each named service PID and of each infrastructure group. */
export function sampleCpu(services: ReadonlyMap<string, number>): CpuSample {
  const sample: CpuSample = {};
  for (const [name, pid] of services) sample[name] = cpuMsOf(pid);
  const groups = Object.entries(INFRASTRUCTURE);
  for (const [group] of groups) sample[group] = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const command = commandOf(entry);
    const group = groups.find(([, commands]) => command !== undefined && commands.includes(command));
    if (group) sample[group[0]]! += cpuMsOf(Number(entry));
  }
  return sample;
}

/** CPU milliseconds spent between two samples, per process group. */
export function cpuSpent(before: CpuSample, after: CpuSample): CpuSample {
  return Object.fromEntries(Object.keys(after).map((name) => [name, Math.max(0, after[name]! - (before[name] ?? 0))]));
}
