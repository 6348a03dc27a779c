import type { Stack } from './launcher';

/**
 * How soon a service that died is started again: after `initialMs`, doubling with every death that
 * follows soon after (a crash loop: 1, 2, 4, 8, 16, 30, 30 ... s), back to `initialMs` once it
 * stayed up `resetAfterMs`. As an orchestrator does (Kubernetes: 10 s doubling to 5 min, reset after
 * 10 min up); shorter here, where a developer waits at the terminal.
 */
export interface RestartBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly resetAfterMs: number;
}

export const RESTART_BACKOFF: RestartBackoff = { initialMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

/** The wait before the next start, given the one before (none yet: undefined) and how long the instance stayed up. */
export function nextRestartDelay(previousMs: number | undefined, upMs: number, backoff: RestartBackoff = RESTART_BACKOFF): number {
  if (previousMs === undefined || upMs >= backoff.resetAfterMs) return backoff.initialMs;
  return Math.min(previousMs * 2, backoff.maxMs);
}

/**
 * Keeps the instances of a stack of processes running (`npm start`): an instance that exits while
 * the stack is not stopping is started again on its port, after a back-off (RestartBackoff), and
 * both are said in one line each (`say`), while the others go on answering. `stop` ends the
 * watching: what exits after it is not started again.
 */
export class Supervisor {
  private stopping = false;
  private readonly delays = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly stack: Pick<Stack, 'exited' | 'restart'>,
    private readonly say: (line: string) => void,
    private readonly backoff: RestartBackoff = RESTART_BACKOFF,
  ) {}

  /** Watches a running instance: when it exits, it is started again. */
  watch(name: string): void {
    const startedAt = Date.now();
    void this.stack
      .exited(name)
      .then(({ code, signal }) => this.scheduleRestart(name, `exited with ${signal ? `signal ${signal}` : `code ${code}`}`, Date.now() - startedAt));
  }

  /** No more restarts (the stack is being stopped). */
  stop(): void {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private scheduleRestart(name: string, what: string, upMs: number): void {
    if (this.stopping) return;
    const delayMs = nextRestartDelay(this.delays.get(name), upMs, this.backoff);
    this.delays.set(name, delayMs);
    this.say(`${name} ${what}; restarting in ${delayMs / 1000} s`);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.restart(name);
    }, delayMs);
    this.timers.add(timer);
  }

  private async restart(name: string): Promise<void> {
    if (this.stopping) return;
    const startedAt = Date.now();
    try {
      // On its port, with its environment, and resolved once it answers /health/ready.
      await this.stack.restart(name);
    } catch (error) {
      this.scheduleRestart(name, `did not start again (${error instanceof Error ? error.message : String(error)})`, Date.now() - startedAt);
      return;
    }
    if (this.stopping) return;
    this.say(`${name} restarted`);
    this.watch(name);
  }
}
