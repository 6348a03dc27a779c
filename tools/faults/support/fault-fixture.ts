// One fault's own stack: the services as processes from dist (the stack launcher, @bedrequest/stack),
// in database schemas, a broker namespace and a Redis key prefix of its own, with a referrer and a
// clinic registered through the admin command line. Every service process runs with the loopback
// firewall preloaded (support/loopback-firewall.cjs). What it reads of the broker is
// broker-inspection.ts, of the databases stored-state.ts, and what it says of the stack when a fault
// fails stack-state.ts.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import pino from 'pino';
import { Registry } from 'prom-client';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { accessToken, type TestSigningKey } from '@bedrequest/tokens/testing';
import { declareTopology, type QueueKey } from '@bedrequest/contracts';
import { connectServiceBroker, type Broker } from '@bedrequest/messaging';
import { launchStack, root, type Stack } from '@bedrequest/stack';
import { testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { queueDepth, takeDeadLettered, unsettledMessages } from './broker-inspection';
import type { PostRecord, Referrer } from './load';
import { describeStack, serviceHealth } from './stack-state';
import { deliveryStates, storedCounts, type StoredCounts } from './stored-state';

export { saveServiceLogs } from './stack-state';
export type { StoredCounts } from './stored-state';

export const FIREWALL = join(__dirname, 'loopback-firewall.cjs');
/** The referrer and clinic every fault stack has: the clinic offers orthopaedics (2300), what the bundles ask for. */
export const REFERRER = {
  username: 'faults-referrer',
  password: 'faults-referrer-password',
  ik: '269900001',
  fhirBase: 'https://faults-hospital.example/fhir',
};
export const CLINIC = { username: 'faults-clinic', password: 'faults-clinic-password', ik: '519900001', name: 'Rehaklinik Fehlerfall', departments: '2300' };

export interface Tokens {
  token: string;
  refreshToken: string;
  partyId: string;
}

export class FaultFixture {
  readonly pool: Pool;
  referrer!: Referrer;
  private client?: Broker;
  /** The stack's development signing key, read once (referrerToken). */
  private signingKey?: Promise<TestSigningKey>;

  private constructor(
    readonly stack: Stack,
    readonly firewallLog: string,
  ) {
    this.pool = new Pool({ connectionString: testEnvironment().databaseUrl, max: 3 });
    this.pool.on('error', () => undefined);
  }

  /** Starts the stack; `settings` add to or override the environment of every service; `replicas`: instances of each. */
  static async start(label: string, settings: Record<string, string> = {}, options: { replicas?: number } = {}): Promise<FaultFixture> {
    const firewallLog = join(root, 'tmp', 'faults', `${uniqueName(label)}.firewall.jsonl`);
    mkdirSync(join(firewallLog, '..'), { recursive: true });
    rmSync(firewallLog, { force: true });
    const stack = await launchStack({
      mode: 'processes',
      isolate: label,
      env: {
        LOG_LEVEL: 'error',
        // The faults measure resilience, not the per-party limits of 200 requests and 2 MiB of bodies a second.
        RATE_LIMIT_PER_SECOND: '1000000',
        RATE_LIMIT_BYTES_PER_SECOND: '1000000000',
        SHUTDOWN_TIMEOUT_MS: '5000',
        FAULTS_FIREWALL_LOG: firewallLog,
        ...settings,
      },
      nodeArgs: ['--require', FIREWALL],
      output: 'capture',
      ...(options.replicas ? { replicas: options.replicas } : {}),
    });
    const faults = new FaultFixture(stack, firewallLog);
    try {
      await faults.admin('clinic', 'upsert', '--ik', CLINIC.ik, '--name', CLINIC.name, '--departments', CLINIC.departments);
      await faults.createReferrer(REFERRER);
      await faults.admin('user', 'create', '--role', 'clinic', '--username', CLINIC.username, '--password', CLINIC.password, '--ik', CLINIC.ik);
      const { token, partyId } = await faults.login(REFERRER.username, REFERRER.password);
      faults.referrer = { fhirBase: REFERRER.fhirBase, ik: REFERRER.ik, token, partyId };
    } catch (error) {
      await faults.stop();
      throw error;
    }
    return faults;
  }

  get gatewayUrl(): string {
    return this.stack.gatewayUrl;
  }

  get namespace(): string {
    return this.stack.namespace;
  }

  schema(service: 'auth' | 'intake' | 'routing' | 'notifier'): string {
    return `${this.namespace}_${service}`;
  }

  queue(key: QueueKey): string {
    return declareTopology(this.namespace).queues[key].name;
  }

  /**
   * An access token of a referrer party that need not exist as a user (the SSRF fault wants one
   * subscription per case, so a party per case), signed with the stack's development key as the
   * auth service signs its own; the services verify it like any other.
   */
  async referrerToken(partyId: string): Promise<string> {
    this.signingKey ??= this.readSigningKey();
    return accessToken(await this.signingKey, { sub: partyId, claims: { role: 'referrer', ik: [REFERRER.ik], fhirBase: REFERRER.fhirBase } });
  }

  private async readSigningKey(): Promise<TestSigningKey> {
    const { rows } = await this.pool.query<{ kid: string; private_jwk: JWK }>(
      `SELECT kid, private_jwk FROM "${this.schema('auth')}".signing_key ORDER BY created_at, kid LIMIT 1`,
    );
    const row = rows[0];
    if (!row) throw new Error('the auth service has no development key yet');
    return { kid: row.kid, privateKey: (await importJWK(row.private_jwk, 'EdDSA')) as CryptoKey, publicJwk: {} };
  }

  /** A referrer user of its IK and FHIR base, made with the admin command line. */
  async createReferrer(referrer: { username: string; password: string; ik: string; fhirBase: string }): Promise<void> {
    await this.admin(
      'user',
      'create',
      '--role',
      'referrer',
      '--username',
      referrer.username,
      '--password',
      referrer.password,
      '--ik',
      referrer.ik,
      '--fhir-base',
      referrer.fhirBase,
    );
  }

  /** `npm run admin -- ...args` against this stack; rejects with the command's one-line error. */
  admin(...args: string[]): Promise<string> {
    return this.stack.admin(...args);
  }

  async login(username: string, password: string): Promise<Tokens> {
    const { accessToken, refreshToken, partyId } = await this.stack.login(username, password);
    return { token: accessToken, refreshToken, partyId };
  }

  /** The administrator's broker URL of this stack: its AMQP_URL setting, else the test run's; of a cluster, the first node. */
  get amqpUrl(): string {
    return (this.stack.env.AMQP_URL ?? testEnvironment().amqpUrl).split(',')[0]!;
  }

  /** A broker client of the test in this stack's namespace (publishes like a service would). */
  async broker(): Promise<Broker> {
    this.client ??= await connectServiceBroker(
      {
        AMQP_URL: this.stack.env.AMQP_URL ?? testEnvironment().amqpUrl,
        AMQP_NAMESPACE: this.namespace,
        AMQP_PREFETCH: 32,
        AMQP_DELIVERY_LIMIT: Number(this.stack.env.AMQP_DELIVERY_LIMIT ?? 5),
      },
      { logger: pino({ level: 'silent' }), metrics: new Registry() },
    );
    return this.client;
  }

  /** Ready messages in a queue and in its dead-letter queue, and the queue's consumers. */
  async queueDepth(key: QueueKey): Promise<{ ready: number; deadLettered: number; consumers: number }> {
    return queueDepth(this.amqpUrl, this.queue(key));
  }

  /**
   * Messages of a queue that are ready or delivered and not yet settled, as the broker counts them
   * (RABBITMQCTL of the stack or the machine's `rabbitmqctl`; see unsettledMessages).
   */
  async unsettled(key: QueueKey): Promise<number> {
    return unsettledMessages(this.stack.env.RABBITMQCTL ?? 'rabbitmqctl', this.amqpUrl, this.queue(key));
  }

  /**
   * Takes the message with `messageId` out of a queue's dead-letter queue, if it is there; other
   * dead letters are put back. Returns its AMQP headers (x-death and the like).
   */
  async takeDeadLettered(key: QueueKey, messageId: string): Promise<Record<string, unknown> | undefined> {
    return takeDeadLettered(this.amqpUrl, this.queue(key), messageId);
  }

  /** How often each identifier is stored in intake's schema: requests and versions. */
  async storedCounts(identifiers: readonly string[]): Promise<StoredCounts> {
    return storedCounts(this.pool, this.schema('intake'), identifiers);
  }

  /**
   * Waits until every bundle answered 202 is stored (or `timeoutMs` passed) and intake's queue and
   * outbox are drained, then counts once more: a late duplicate would show in that count.
   */
  async settleAccepted(posts: readonly PostRecord[], timeoutMs = 90_000): Promise<StoredCounts & { accepted: number; settledMs: number }> {
    const identifiers = posts.filter((post) => post.status === 202).map((post) => post.identifier);
    const started = Date.now();
    await waitFor(async () => (await this.storedCounts(identifiers)).missing.length === 0, {
      timeoutMs,
      intervalMs: 500,
      what: 'every accepted bundle to be stored',
    }).catch(() => undefined);
    await this.drained(Math.max(5_000, timeoutMs - (Date.now() - started))).catch(() => undefined);
    const counts = await this.storedCounts(identifiers);
    return { ...counts, accepted: identifiers.length, settledMs: Date.now() - started };
  }

  /** Where the webhooks of these requests (their UUIDs) stand in the notifier (see deliveryStates). */
  async deliveryStates(requestIds: readonly string[]): Promise<string> {
    return deliveryStates(this.pool, this.schema('notifier'), requestIds);
  }

  /** Intake's and routing's queues empty and intake's outbox published. */
  async drained(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        const [intake, routing] = [await this.queueDepth('intake'), await this.queueDepth('routing')];
        const outbox = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${this.schema('intake')}".outbox_message`);
        return intake.ready === 0 && routing.ready === 0 && outbox.rows[0]!.n === 0;
      },
      { timeoutMs, intervalMs: 500, what: 'the queues to drain' },
    );
  }

  /** Every service process still running and answering /health/ready with 200. */
  async health(): Promise<Record<string, number | 'exited'>> {
    return serviceHealth(this.stack);
  }

  /**
   * Runs a fault's work; when it fails, the error also says what state the stack was in then: each
   * instance's readiness and the last lines it wrote, and each queue's ready, dead-lettered and
   * consuming count. Everything each instance wrote is saved under tmp/faults (saveServiceLogs).
   */
  async explainingFailure<T>(label: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const state = await describeStack(this.stack, label, (key) => this.queueDepth(key)).catch(
        (failure: unknown) => `(could not read the stack's state: ${String(failure)})`,
      );
      if (error instanceof Error) {
        error.message += `\n\n${state}`;
        throw error;
      }
      throw new Error(`${String(error)}\n\n${state}`);
    }
  }

  /** Connections the services tried to open to anything but loopback (refused by the firewall). */
  blockedConnections(): { address: string; port: number }[] {
    if (!existsSync(this.firewallLog)) return [];
    return readFileSync(this.firewallLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { action: string; address: string; port: number })
      .filter((entry) => entry.action === 'blocked');
  }

  /**
   * Stops the services and removes the stack's schemas and broker objects. Fails if any service
   * tried to open a connection beyond loopback meanwhile (the firewall refused it).
   */
  async stop(): Promise<void> {
    await this.client?.stop(2_000).catch(() => undefined);
    // The launcher removes the stack's schemas and broker objects too.
    await this.stack.stop();
    await this.pool.end();
    const blocked = this.blockedConnections();
    rmSync(this.firewallLog, { force: true });
    if (blocked.length) throw new Error(`services of ${this.namespace} tried to connect beyond loopback: ${JSON.stringify(blocked)}`);
  }
}
