// Several notifier processes on one schema and one queue, the competing consumers a deployment
// scales out (deploy/: KEDA on the deliveries due), delivering to slow receivers: for the fault
// suite's scale-out fault (tools/faults/scale-out.faults.spec.ts) and the benchmark's figure 7a
// (bench/src/figure-scale-out.ts), which start the processes with the stack launcher.
import { Pool } from 'pg';
import { declareTopology, messageCatalog } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { WebhookReceiver, metricSum, silentLogger, waitFor, type ReceivedWebhook } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { plannedEvents, publishEvent, subscribeParties } from './fleet-events';
import { arrivalFigures, type FleetRun } from './fleet-run';

export type { FleetRun } from './fleet-run';

/**
 * What the fleet needs of the stack launcher (`launchStack` of @bedrequest/stack, which the callers
 * pass in: a tool, which the notifier's code does not import): service processes from dist started
 * and signalled by name.
 */
export interface FleetStack {
  /** The environment every process gets: the fleet's schema and broker namespace among it. */
  readonly env: Record<string, string>;
  start(name: string, service: 'notifier'): Promise<unknown>;
  instances(): readonly { name: string; url: string; probeUrl: string; pid: number }[];
  kill(name: string, signal: NodeJS.Signals): Promise<unknown>;
  exited(name: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface FleetOptions {
  /**
   * Starts an empty stack of processes with `env` over the caller's (`launchStack` with no
   * services, isolated: a schema and broker namespace of its own, removed again by `stop()`).
   */
  launch: (env: Record<string, string>) => Promise<FleetStack>;
  databaseUrl: string;
  amqpUrl: string;
  /** WEBHOOK_CONCURRENCY of every process: attempts in flight at once per process. */
  concurrency: number;
  /** How long each receiver takes to answer (a timer: the receivers spend no CPU waiting). */
  answerDelayMs: number;
  /** Referring parties, each with its own subscription and callback URL. */
  parties: number;
  /** Receivers (origins) the parties' callback URLs are spread over. */
  receivers: number;
  /**
   * How long `deliver` waits for every event to arrive (and for its mid-run action's point) before
   * it counts those that did not as lost: a bound that only catches a hang. Default 300 s.
   */
  arrivalTimeoutMs?: number;
}

/** A notifier stopped with SIGTERM in the middle of a run. */
export interface StoppedInstance {
  name: string;
  /** Events delivered (first arrivals) when the signal was sent. */
  deliveredBefore: number;
  /** Attempts it had started and not yet recorded just before the signal (from its /metrics). */
  heldAtSignal: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** From the signal until the process had ended. */
  stopMs: number;
}

/**
 * Notifier processes from dist (as production runs them, with their own SIGTERM handling), each with
 * WEBHOOK_CONCURRENCY `concurrency`, on one schema and queue; `parties` subscriptions whose callback
 * URLs are spread over `receivers` local receivers that answer 204 after `answerDelayMs`; a stand-in
 * auth service for the subscription API's tokens. Events are AdmissionResponses published straight
 * to the notifier's queue, two per request, so that the order rule (docs/webhooks.md, "Order") is
 * at work across the processes too.
 */
export class NotifierFleet {
  private readonly instances: string[] = [];
  private started = 0;

  private constructor(
    private readonly options: FleetOptions,
    private readonly stack: FleetStack,
    private readonly authority: TestAuthority,
    private readonly receivers: WebhookReceiver[],
    private readonly client: Broker,
    private readonly pool: Pool,
  ) {}

  static async start(options: FleetOptions): Promise<NotifierFleet> {
    const authority = await TestAuthority.start();
    const receivers = Array.from({ length: options.receivers }, () => new WebhookReceiver());
    const stack = await options.launch({
      ...authority.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: options.databaseUrl,
      AMQP_URL: options.amqpUrl,
      DATABASE_POOL_SIZE: '4',
      WEBHOOK_CONCURRENCY: String(options.concurrency),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // A claim lasts the attempt timeout plus 5 s: an attempt a stopped process left unrecorded
      // is sent again within 7 s, while the run still watches.
      WEBHOOK_TIMEOUT: '2s',
      SHUTDOWN_TIMEOUT_MS: '10000',
    });
    const topology = declareTopology(stack.env.AMQP_NAMESPACE!);
    const client = new Broker({ url: options.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 5 });
    const fleet = new NotifierFleet(options, stack, authority, receivers, client, new Pool({ connectionString: options.databaseUrl, max: 2 }));
    try {
      for (const receiver of receivers) {
        await receiver.start();
        receiver.answer = () => ({ status: 204, delayMs: options.answerDelayMs });
      }
      await client.start();
      // The first process applies the migrations; the subscriptions are made through it.
      const first = await fleet.add();
      await fleet.subscribe(first);
    } catch (error) {
      await fleet.stop();
      throw error;
    }
    return fleet;
  }

  get size(): number {
    return this.instances.length;
  }

  private get schema(): string {
    return this.stack.env.NOTIFIER_DB_SCHEMA!;
  }

  /** Starts one more notifier process and waits until it is ready; resolves with its name. */
  async add(): Promise<string> {
    const name = `notifier-${++this.started}`;
    await this.stack.start(name, 'notifier');
    this.instances.push(name);
    return name;
  }

  /** The running processes' ids, by instance name. */
  processes(): Map<string, number> {
    return new Map(this.stack.instances().flatMap((instance) => (this.instances.includes(instance.name) ? [[instance.name, instance.pid] as const] : [])));
  }

  async scaleTo(count: number): Promise<void> {
    while (this.instances.length < count) await this.add();
  }

  /**
   * Publishes `events` AdmissionResponses (two per request, the requests spread over the parties)
   * and waits until every one arrived and the notifiers recorded each as delivered. `midRun` runs
   * once `midRun.afterDelivered` events have arrived, while the rest are under way.
   */
  async deliver<T>(events: number, midRun?: { afterDelivered: number; action: () => Promise<T> }): Promise<FleetRun & { midRun?: T }> {
    for (const receiver of this.receivers) receiver.reset();
    const attemptsBefore = await this.attemptsByInstance();
    const { requests, published } = plannedEvents(events, this.options.parties);
    const firstArrivals = () => new Set(this.received().map((webhook) => webhook.id)).size;
    const started = performance.now();
    const occurredFrom = Date.now() - events;
    const arrivalTimeoutMs = this.options.arrivalTimeoutMs ?? 300_000;
    const action = midRun
      ? waitFor(() => firstArrivals() >= midRun.afterDelivered, {
          timeoutMs: arrivalTimeoutMs,
          intervalMs: 5,
          what: `${midRun.afterDelivered} events before the mid-run action`,
        }).then(midRun.action)
      : undefined;
    for (let from = 0; from < events; from += 256) {
      await Promise.all(published.slice(from, from + 256).map((event, index) => publishEvent(this.client, event, new Date(occurredFrom + from + index))));
    }
    await waitFor(() => firstArrivals() === events, { timeoutMs: arrivalTimeoutMs, intervalMs: 20, what: `${events} events at the receivers` }).catch(
      () => undefined,
    );
    const midRunResult = await action;
    const ids = published.map((event) => event.eventId);
    // Every event recorded as delivered: an attempt a process made but did not record would be sent
    // again once its claim ran out (7 s). 60 s only catches a hang; it returns as soon as all are.
    const recordedDelivered = await waitFor(
      async () => {
        const { rows } = await this.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${this.schema}".delivery WHERE event_id = ANY($1::uuid[]) AND status = 'delivered'`,
          [ids],
        );
        return rows[0]!.n === events && rows[0]!.n;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'every event recorded as delivered' },
    ).catch(async () => {
      const { rows } = await this.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${this.schema}".delivery WHERE event_id = ANY($1::uuid[]) AND status = 'delivered'`,
        [ids],
      );
      return rows[0]!.n;
    });
    const figures = arrivalFigures(published, requests.length, this.received(), started);
    const attemptsAfter = await this.attemptsByInstance();
    return {
      events,
      perSecond: figures.perSecond,
      overallPerSecond: figures.overallPerSecond,
      seconds: figures.seconds,
      lost: figures.lost,
      doubled: figures.doubled,
      recordedDelivered,
      outOfOrder: figures.outOfOrder,
      attemptsByInstance: Object.fromEntries(Object.entries(attemptsAfter).map(([name, attempts]) => [name, attempts - (attemptsBefore[name] ?? 0)])),
      ...(midRun ? { midRun: midRunResult as T } : {}),
    };
  }

  /**
   * Stops the newest process with SIGTERM, as an orchestrator scales in, and waits until it has
   * ended. `whileHoldingWithinMs`: the signal waits (up to that many ms) until the process holds attempts,
   * read from its counters: a process between two claims holds none for a moment, and a stop then
   * would not show what a stop mid-delivery does.
   */
  async terminateOne(options: { whileHoldingWithinMs?: number } = {}): Promise<StoppedInstance> {
    const name = this.instances.pop();
    if (!name) throw new Error('no notifier process is running');
    const held = (counters: { attempted: number; succeeded: number; failed: number }) => counters.attempted - counters.succeeded - counters.failed;
    let counters = await this.deliveryCounters(name);
    const until = performance.now() + (options.whileHoldingWithinMs ?? 0);
    while (held(counters) === 0 && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      counters = await this.deliveryCounters(name);
    }
    const deliveredBefore = new Set(this.received().map((webhook) => webhook.id)).size;
    const exited = this.stack.exited(name);
    const signalled = performance.now();
    await this.stack.kill(name, 'SIGTERM');
    const { code, signal } = await exited;
    return {
      name,
      deliveredBefore,
      heldAtSignal: held(counters),
      exitCode: code,
      signal,
      stopMs: performance.now() - signalled,
    };
  }

  async stop(): Promise<void> {
    await this.client.stop().catch(() => undefined);
    await this.stack.stop();
    for (const receiver of this.receivers) await receiver.stop();
    await this.authority.stop();
    await this.pool.end();
  }

  private received(): ReceivedWebhook[] {
    return this.receivers.flatMap((receiver) => receiver.received);
  }

  private async subscribe(instance: string): Promise<void> {
    const url = this.stack.instances().find((running) => running.name === instance)!.url;
    await subscribeParties(url, this.options.parties, this.receivers, this.authority);
  }

  /** Attempts started (webhook_deliveries_attempted_total) by every running process. */
  private async attemptsByInstance(): Promise<Record<string, number>> {
    const counts = await Promise.all(this.instances.map(async (name) => [name, (await this.deliveryCounters(name)).attempted] as const));
    return Object.fromEntries(counts);
  }

  /** An instance's delivery counters: attempts started, and those recorded as succeeded or failed (delivery-metrics.ts). */
  private async deliveryCounters(name: string): Promise<{ attempted: number; succeeded: number; failed: number }> {
    const instance = this.stack.instances().find((running) => running.name === name)!;
    const metrics = await fetch(`${instance.probeUrl}/metrics`).then((response) => response.text());
    return {
      attempted: metricSum(metrics, 'webhook_deliveries_attempted_total'),
      succeeded: metricSum(metrics, 'webhook_deliveries_succeeded_total'),
      failed: metricSum(metrics, 'webhook_deliveries_failed_total'),
    };
  }
}
