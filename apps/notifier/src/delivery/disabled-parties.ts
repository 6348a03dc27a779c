import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { DisabledPartiesAnswer } from '@bedrequest/contracts';
import { InternalClient, type TokenSource } from '@bedrequest/http';

export interface DisabledPartiesOptions {
  /** Reads auth's list (`loadDisabledPartiesFrom`). */
  load: () => Promise<DisabledPartiesAnswer>;
  /** From the end of one read to the start of the next (WEBHOOK_PARTY_POLL_MS). */
  pollIntervalMs: number;
  logger: Logger;
  /** How long `start` waits for the first list (default 2 s). */
  startTimeoutMs?: number;
  /**
   * How long after the start a failed read is expected rather than warned about (default 60 s,
   * STARTUP_TIMEOUT_MS): auth may start beside the notifier (`npm start`, a rollout).
   */
  startGraceMs?: number;
  registry?: Registry;
  /** Called by `stop`: closes what `load` reads with. */
  close?: () => Promise<void>;
}

/**
 * The parties disabled now (docs/parties.md, "Disabling"), read from auth's
 * `GET /internal/disabled-parties` every `pollIntervalMs` and kept in memory, so that the check at
 * delivery time (docs/webhooks.md, "Authorization at delivery time") costs no call per webhook. Not
 * auth's revocation list: that one holds only an hour of revocations (a party disabled longer ago
 * drops out of it while its retries still run) and keeps a party enabled again within that hour.
 *
 * Fails open like the gateway's revocation list: while auth cannot be read, the last list stays in
 * force, with one warning per outage; `webhook_disabled_parties_age_seconds` says how old it is.
 */
export class DisabledParties {
  private parties: ReadonlySet<string> = new Set();
  private readAtMs?: number;
  private readonly createdAtMs = Date.now();
  private failing = false;
  private timer?: NodeJS.Timeout;
  private graceTimer?: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly options: DisabledPartiesOptions) {
    if (options.registry) {
      const ageSeconds = () => this.ageMs() / 1000;
      new Gauge({
        name: 'webhook_disabled_parties_age_seconds',
        help: 'Seconds since the list of disabled parties was last read from auth (since start, before the first read)',
        registers: [options.registry],
        collect() {
          this.set(ageSeconds());
        },
      });
    }
  }

  /** Whether the party is disabled, by the last list read. */
  isDisabled(partyId: string): boolean {
    return this.parties.has(partyId);
  }

  /** Reads the list, then every `pollIntervalMs`; waits for the first read at most `startTimeoutMs`. */
  async start(): Promise<void> {
    this.polling = true;
    const first = this.refresh().finally(() => this.schedule());
    let timeout: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, this.options.startTimeoutMs ?? 2_000);
      timeout.unref();
    });
    await Promise.race([first, waited]);
    clearTimeout(timeout);
    if (this.readAtMs !== undefined) return;
    // Until auth answers, the polls go on quietly; a warning only if it has not within the grace.
    this.graceTimer = setTimeout(() => {
      if (this.readAtMs !== undefined || !this.polling) return;
      this.failing = true;
      this.options.logger.warn('started without the list of disabled parties: auth has not answered yet; webhooks go out unchecked until it does');
    }, this.graceMs());
    this.graceTimer.unref();
  }

  stop(): Promise<void> {
    this.polling = false;
    clearTimeout(this.timer);
    clearTimeout(this.graceTimer);
    return this.options.close?.() ?? Promise.resolve();
  }

  /** One read: applied when it succeeds, otherwise the last list stays. Never throws. */
  async refresh(): Promise<void> {
    try {
      const answer = await this.options.load();
      this.parties = new Set(answer.parties.map((party) => party.id));
      this.readAtMs = Date.now();
      if (this.failing) this.options.logger.info('the list of disabled parties is read from auth again');
      this.failing = false;
    } catch (error) {
      const starting = this.readAtMs === undefined && Date.now() - this.createdAtMs < this.graceMs();
      if (!this.failing && !starting) {
        this.options.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'the list of disabled parties cannot be read from auth: the last one read stays in force until it can',
        );
      }
      this.failing = true;
    }
  }

  private graceMs(): number {
    return this.options.startGraceMs ?? 60_000;
  }

  ageMs(): number {
    return Date.now() - (this.readAtMs ?? this.createdAtMs);
  }

  private schedule(): void {
    if (!this.polling) return;
    this.timer = setTimeout(() => void this.refresh().finally(() => this.schedule()), this.options.pollIntervalMs);
    this.timer.unref();
  }
}

/** `load` for DisabledParties: auth's `GET /internal/disabled-parties` with a service token of the notifier. */
export function loadDisabledPartiesFrom(authUrl: string, tokens: TokenSource, timeoutMs = 2_000): Pick<DisabledPartiesOptions, 'load' | 'close'> {
  const auth = new InternalClient({
    service: 'auth',
    baseUrl: authUrl,
    timeoutMs,
    unavailableMessage: 'the list of disabled parties is unavailable',
    connections: 1,
  });
  return {
    load: async () => (await auth.json({ method: 'GET', path: '/internal/disabled-parties', credential: tokens }, { 200: DisabledPartiesAnswer })).body,
    close: () => auth.close(),
  };
}
