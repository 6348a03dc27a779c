import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
}

/**
 * Which run measured a figure: each figure in latest.json carries its own, since `--only` keeps the
 * figures of earlier runs beside the new ones. `null` where it was not recorded.
 */
export interface RunProvenance {
  startedAt: string | null;
  /** `git rev-parse HEAD` when the run started. */
  commit: string | null;
  /** Whether the working tree differed from that commit (bench/results aside: the bench writes there). */
  dirty: boolean | null;
  /** `--quick`: short durations, not for comparison. */
  quick: boolean;
  /** The figures this run measured (`--only`), or null for all of them. */
  only?: string[] | null;
  machine: Machine | null;
  /** How the provenance of a figure recorded before runs carried their own was recovered. */
  note?: string;
}

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** The provenance of the run starting now in the checkout at `root`. */
export function thisRun(options: { root: string; quick: boolean; only: string[] | null }): RunProvenance {
  const commit = git(options.root, ['rev-parse', 'HEAD']);
  const status = commit === null ? null : git(options.root, ['status', '--porcelain', '--', '.', ':(exclude)bench/results']);
  return {
    startedAt: new Date().toISOString(),
    commit,
    dirty: status === null ? null : status.length > 0,
    quick: options.quick,
    only: options.only,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      os: `${os.type()} ${os.release()}`,
    },
  };
}
