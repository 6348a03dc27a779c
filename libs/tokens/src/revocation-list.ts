import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { RevocationListAnswer, type RevokedSubject } from '@bedrequest/contracts';
import { InternalClient, UpstreamUnavailableError, type TokenSource } from '@bedrequest/http';
import type { Principal } from './claims';

/** What the verifier asks of a revocation list. */
export interface Revocations {
  /** Whether the access token of `principal` issued at `issuedAtSeconds` (`iat`) was revoked at or after that second. */
  revokes(principal: Principal, issuedAtSeconds: number): boolean;
  /** Calls `listener` whenever the list gained a revocation. */
  onRevoked(listener: () => void): void;
}

export interface RevocationListOptions {
  /** Reads auth's list (`loadRevocationsFrom`). */
  load: () => Promise<RevocationListAnswer>;
  /** From the end of one read to the start of the next (AUTH_REVOCATION_POLL_MS). */
  pollIntervalMs: number;
  logger: Logger;
  /** How long `start` waits for the first list before the service starts without it (default 2 s). */
  startTimeoutMs?: number;
  /** Where the list's age and failed reads are exported (the service's /metrics). */
  registry?: Registry;
  /** Called by `stop`: closes what `load` reads with. */
  close?: () => Promise<void>;
  now?: () => number;
}

/** The first read at start is waited for this long at most: auth is up by then in a normal start. */
const START_TIMEOUT_MS = 2_000;

/**
 * The people and parties whose access tokens auth revoked (docs/parties.md, "Disabling"), read
 * from auth every `pollIntervalMs` and kept in memory, so that no request waits for auth. A token is
 * revoked when its person (`act.sub`) or its party (`sub`) was revoked at or after its `iat`.
 *
 * Fails open: while auth cannot be read, the last list read stays in force and one warning per
 * outage is logged; `token_revocation_list_age_seconds` tells operators how old it is
 * (docs/operations.md). Its timers never keep the process alive; `stop` ends the polling.
 */
export class RevocationList implements Revocations {
  private users: ReadonlyMap<string, number> = new Map();
  private parties: ReadonlyMap<string, number> = new Map();
  private readonly listeners: (() => void)[] = [];
  private readonly now: () => number;
  private readonly failures?: Counter;
  private readonly createdAtMs: number;
  private readAtMs?: number;
  private failingSinceMs?: number;
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly options: RevocationListOptions) {
    this.now = options.now ?? Date.now;
    this.createdAtMs = this.now();
    if (options.registry) {
      const ageSeconds = () => this.ageMs() / 1000;
      new Gauge({
        name: 'token_revocation_list_age_seconds',
        help: 'Seconds since the list of revoked access tokens was last read from auth (since start, before the first read)',
        registers: [options.registry],
        collect() {
          this.set(ageSeconds());
        },
      });
      this.failures = new Counter({
        name: 'token_revocation_list_failures_total',
        help: 'Reads of the list of revoked access tokens that failed (auth unreachable or an answer outside its contract)',
        registers: [options.registry],
      });
    }
  }

  /**
   * Reads the list, then keeps reading it every `pollIntervalMs`. Waits for the first read at most
   * `startTimeoutMs`, so that a service whose auth is slow still starts (with a warning), checking
   * tokens against the list once it comes.
   */
  async start(): Promise<void> {
    this.polling = true;
    const first = this.refresh().finally(() => this.schedule());
    let timeout: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, this.options.startTimeoutMs ?? START_TIMEOUT_MS);
      timeout.unref();
    });
    await Promise.race([first, waited]);
    clearTimeout(timeout);
    if (this.readAtMs === undefined) {
      this.options.logger.warn(
        'started without the list of revoked access tokens: auth has not answered yet; tokens of people disabled meanwhile pass until it does',
      );
    }
  }

  stop(): Promise<void> {
    this.polling = false;
    clearTimeout(this.timer);
    return this.options.close?.() ?? Promise.resolve();
  }

  /** One read of the list: applied when it succeeds; otherwise the last list stays (fail open). Never throws. */
  async refresh(): Promise<void> {
    let answer: RevocationListAnswer;
    try {
      answer = await this.options.load();
    } catch (error) {
      this.failures?.inc();
      if (this.failingSinceMs === undefined) {
        this.failingSinceMs = this.now();
        this.options.logger.warn(
          { reason: reasonOf(error), listAgeSeconds: Math.round(this.ageMs() / 1000) },
          'the list of revoked access tokens cannot be read from auth: the last one read stays in force until it can (docs/operations.md)',
        );
      }
      return;
    }
    this.apply(answer);
    this.readAtMs = this.now();
    if (this.failingSinceMs !== undefined) {
      this.options.logger.info(
        { outageSeconds: Math.round((this.readAtMs - this.failingSinceMs) / 1000) },
        'the list of revoked access tokens is read from auth again',
      );
      this.failingSinceMs = undefined;
    }
  }

  revokes(principal: Principal, issuedAtSeconds: number): boolean {
    const issuedAtMs = issuedAtSeconds * 1000;
    return (this.users.get(principal.userId) ?? -Infinity) >= issuedAtMs || (this.parties.get(principal.partyId) ?? -Infinity) >= issuedAtMs;
  }

  onRevoked(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Milliseconds since the list was last read; since it was made, before the first read. */
  ageMs(): number {
    return this.now() - (this.readAtMs ?? this.createdAtMs);
  }

  private schedule(): void {
    if (!this.polling) return;
    this.timer = setTimeout(() => void this.refresh().finally(() => this.schedule()), this.options.pollIntervalMs);
    this.timer.unref();
  }

  private apply(answer: RevocationListAnswer): void {
    const [users, parties] = [byId(answer.users), byId(answer.parties)];
    const gained = (next: ReadonlyMap<string, number>, before: ReadonlyMap<string, number>) => [...next].some(([id, at]) => before.get(id) !== at);
    const revoked = gained(users, this.users) || gained(parties, this.parties);
    this.users = users;
    this.parties = parties;
    if (revoked) for (const listener of this.listeners) listener();
  }
}

function byId(subjects: readonly RevokedSubject[]): ReadonlyMap<string, number> {
  return new Map(subjects.map((subject) => [subject.id, Date.parse(subject.revokedAt)]));
}

/**
 * `load` for a RevocationList: auth's `GET /internal/revocations`, with a service token of the
 * calling service, within `timeoutMs`; `close` ends its connection.
 */
export function loadRevocationsFrom(authUrl: string, tokens: TokenSource, timeoutMs = 2_000): Pick<RevocationListOptions, 'load' | 'close'> {
  const auth = new InternalClient({
    service: 'auth',
    baseUrl: authUrl,
    timeoutMs,
    unavailableMessage: 'the list of revoked access tokens is unavailable',
    connections: 1,
  });
  return {
    load: async () => (await auth.json({ method: 'GET', path: '/internal/revocations', credential: tokens }, { 200: RevocationListAnswer })).body,
    close: () => auth.close(),
  };
}

/** Why a read failed: for auth's answer, what it answered or why it could not be reached, not the client's generic message. */
function reasonOf(error: unknown): string {
  if (error instanceof UpstreamUnavailableError) return `${error.upstream.service} ${error.reason}`;
  return error instanceof Error ? error.message : String(error);
}
