import type { Logger } from 'pino';
import { ClinicList, ClinicRegistryChangedV1, type ClinicRecord, type Envelope, type MessageDefinition } from '@bedrequest/contracts';
import { InternalClient, UpstreamUnavailableError, type TokenSource } from '@bedrequest/http';
import { waitForDependency, type Waiting } from '@bedrequest/observability';

/** The registry cannot be read (routing unreachable, or an answer of the wrong shape): 503 / try again. */
export class ClinicDirectoryUnavailableError extends Error {
  override name = 'ClinicDirectoryUnavailableError';
}

/** What the directory needs of the broker: a broadcast subscription (libs/messaging Broker#subscribe). */
export interface BroadcastSubscriber {
  subscribe(subscription: {
    routingKeys: readonly string[];
    handler: (message: { envelope: Envelope; definition: MessageDefinition }) => void;
    onSubscribed?: () => void;
  }): Promise<void>;
}

export interface ClinicDirectoryOptions {
  /** Reads the whole registry (routing's internal API; see `loadClinicsFrom`). */
  load: () => Promise<ClinicRecord[]>;
  logger: Logger;
  /** A full reload this often, a safety net besides the change broadcasts (default 60 s). */
  refreshIntervalMs?: number;
  /** How long `start` waits for the first load before it gives up (default 60 s, STARTUP_TIMEOUT_MS). */
  startTimeoutMs?: number;
  /** After this long without the first load, `start` says once what it waits for (default 5 s). */
  noticeAfterMs?: number;
  /** Unknown IKs make it read the registry again at most this often (default 1 s). */
  unknownIkReloadIntervalMs?: number;
}

/**
 * The participating clinics, kept in memory by the services that need them on every request (the
 * gateway checks each bundle's performers; intake declines for clinics that do not offer the
 * requested department), so that nobody asks routing per request. Routing owns the registry and
 * broadcasts `clinic.registry.changed.v1` whenever a clinic is registered or changed; a process
 * reloads everything after it (re)subscribes (broadcasts sent meanwhile are lost), every
 * `refreshIntervalMs`, and when asked for an IK it does not know: a clinic registered a moment ago
 * is found before its broadcast arrives. That read begins at most once per
 * `unknownIkReloadIntervalMs` after the last one began (a lookup meanwhile waits for it), so that
 * bundles full of made-up IKs cannot make every request read the whole registry from routing.
 */
export class ClinicDirectory {
  private clinics?: ReadonlyMap<string, ClinicRecord>;
  private loading?: Promise<ReadonlyMap<string, ClinicRecord>>;
  private timer?: NodeJS.Timeout;
  /** When the last read of the registry began. */
  private lastReadAt = Number.NEGATIVE_INFINITY;
  /** The read unknown IKs wait for, while it is too soon after the last one. */
  private scheduled?: Promise<ReadonlyMap<string, ClinicRecord>>;

  constructor(private readonly options: ClinicDirectoryOptions) {}

  /**
   * Subscribes to the registry's changes and waits for the first load: at start-up routing (and
   * auth, for the service token) may still be starting, so the load is tried again with backoff,
   * quietly for the first seconds, then with one line saying what it waits for. Throws
   * DependencyUnavailableError (one line: which service, why) after `startTimeoutMs`.
   */
  async start(broker: BroadcastSubscriber): Promise<void> {
    await broker.subscribe({
      routingKeys: [ClinicRegistryChangedV1.routingKey],
      handler: ({ envelope }) => this.apply(ClinicRegistryChangedV1.payload.parse(envelope.payload).clinic),
      onSubscribed: () => this.reloadInBackground(),
    });
    await waitForDependency(() => this.reload(), {
      logger: this.options.logger,
      describe: waitingFor,
      ...(this.options.startTimeoutMs === undefined ? {} : { giveUpAfterMs: this.options.startTimeoutMs }),
      ...(this.options.noticeAfterMs === undefined ? {} : { noticeAfterMs: this.options.noticeAfterMs }),
    });
    this.timer = setInterval(() => this.reloadInBackground(), this.options.refreshIntervalMs ?? 60_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** True once the registry was loaded at least once (for readiness). */
  isLoaded(): boolean {
    return this.clinics !== undefined;
  }

  /**
   * The registered clinic of each IK (absent: not a participating clinic). An IK it does not know
   * makes it read the registry again first: at once, or, less than `unknownIkReloadIntervalMs`
   * after the last read began, with the read every such lookup waits for until then. Throws
   * ClinicDirectoryUnavailableError when the registry cannot be read.
   */
  async lookup(iks: readonly string[]): Promise<ReadonlyMap<string, ClinicRecord>> {
    const cached = this.clinics;
    let clinics = cached ?? (await this.reload());
    if (cached && iks.some((ik) => !cached.has(ik))) clinics = await this.reloadNoSoonerThanAllowed();
    return new Map(
      iks.flatMap((ik) => {
        const clinic = clinics.get(ik);
        return clinic ? [[ik, clinic] as const] : [];
      }),
    );
  }

  /** Every participating clinic, ordered by IK. */
  async list(): Promise<ClinicRecord[]> {
    const clinics = this.clinics ?? (await this.reload());
    return [...clinics.values()].sort((a, b) => a.ik.localeCompare(b.ik));
  }

  private apply(clinic: ClinicRecord): void {
    if (!this.clinics) return; // the first load is still to come and will include it
    this.clinics = new Map(this.clinics).set(clinic.ik, clinic);
  }

  /** A read for unknown IKs: now, or once `unknownIkReloadIntervalMs` have passed since the last read began. */
  private reloadNoSoonerThanAllowed(): Promise<ReadonlyMap<string, ClinicRecord>> {
    const waitMs = this.lastReadAt + (this.options.unknownIkReloadIntervalMs ?? 1_000) - Date.now();
    if (waitMs <= 0) return this.reload();
    this.scheduled ??= new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref()).then(() => {
      this.scheduled = undefined;
      return this.reload();
    });
    return this.scheduled;
  }

  /** Reads the whole registry; concurrent callers share one read. */
  private reload(): Promise<ReadonlyMap<string, ClinicRecord>> {
    if (!this.loading) this.lastReadAt = Date.now();
    this.loading ??= this.options
      .load()
      .then((list) => {
        const clinics = new Map(list.map((clinic) => [clinic.ik, clinic] as const));
        this.clinics = clinics;
        return clinics;
      })
      .catch((error: unknown) => {
        throw error instanceof ClinicDirectoryUnavailableError
          ? error
          : new ClinicDirectoryUnavailableError('the clinic registry is unavailable', { cause: error });
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** A reload after a (re)subscription or on the timer; before the first load, `start` is already loading. */
  private reloadInBackground(): void {
    if (!this.clinics) return;
    this.reload().catch((error: unknown) =>
      this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'the clinic registry could not be reloaded; will retry'),
    );
  }
}

/**
 * `load` for a ClinicDirectory: routing's internal `GET /internal/clinics`, with a service token of
 * the calling service, within `timeoutMs`. Its failures reach callers as
 * ClinicDirectoryUnavailableError (the directory's reload wraps them).
 */
export function loadClinicsFrom(routingUrl: string, tokens: TokenSource, timeoutMs = 5_000): () => Promise<ClinicRecord[]> {
  const routing = new InternalClient({
    service: 'routing',
    baseUrl: routingUrl,
    timeoutMs,
    unavailableMessage: 'the clinic registry is unavailable',
    connections: 1,
  });
  return async () => (await routing.json({ method: 'GET', path: '/internal/clinics', credential: tokens }, { 200: ClinicList })).body.items;
}

/**
 * What the first load waits for: the service whose call failed (auth for the service token, or
 * routing itself) at its address, and why, e.g. "auth at http://127.0.0.1:8081" / "connect ECONNREFUSED …".
 */
function waitingFor(error: unknown): Waiting {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof UpstreamUnavailableError) return { what: `${cause.upstream.service} at ${cause.upstream.url}`, reason: cause.reason };
  }
  return { what: 'the clinic registry', reason: error instanceof Error ? error.message : String(error) };
}
