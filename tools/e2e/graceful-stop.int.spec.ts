import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { parseAllDocuments } from 'yaml';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { buildServices, launchStack, root, type ServiceName, type Stack } from '@bedrequest/stack';
import { metricSum, requestOf, waitFor, WebhookReceiver } from '@bedrequest/testing';

/**
 * SIGTERM to each kind of service under load, with a second instance of it taking over the work
 * (docs/operations.md, "Stopping a service"). Each one must exit 0 within the grace period of its
 * Kubernetes manifest, which must hold its budget (SHUTDOWN_TIMEOUT_MS) and the time to close its
 * connections; its readiness must answer 503 from the signal on; and nothing it held may be lost:
 * every bundle answered 202 is stored exactly once and its webhook arrives. The notifier is stopped
 * while the receiver holds every answer: it must exit without them, handing back the attempts it
 * has under way at its budget, and the other notifier must send those again before their lease
 * would have run out.
 *
 * How long each stop took, and how soon the handed-back attempts came again, are printed as figures:
 * timing is the bench's, not a test's. The bounds here (the grace period, the lease) only catch a
 * service that waits for what it should give up.
 *
 * Every request goes the whole way: the clinic answers automatically from its bed counts, so routing
 * answers, intake stores the answer and the notifier sends the referrer's webhook.
 */

const CLINIC = '510000251';
const DATE = '2027-03-01';
/** Short, so that the test is short; the grace periods are checked against the default (see below). */
const SHUTDOWN_TIMEOUT_MS = 3_000;
/** After the budget: closing the broker, database and Redis connections and exiting. */
const CLOSING_MARGIN_MS = 2_000;
/**
 * An attempt that a stopping notifier did not hand back is claimed again only once its lease (this
 * plus 5 s) has run out: longer than any bound of the test, so what comes again within one was
 * handed back.
 */
const WEBHOOK_TIMEOUT_MS = 60_000;
/** Stopped in this order, one after another, each while a second instance carries on. */
const KINDS: readonly ServiceName[] = ['notifier', 'intake', 'routing', 'gateway', 'auth', 'web'];

interface Posted {
  identifier: string;
  /** The kind of service being stopped while it was sent. */
  phase: ServiceName;
  status: number;
  /** Set when the request got no answer: a request cut by a stopping server, not one it refused to take. */
  error?: string;
}

interface ProbeAnswer {
  sentAt: number;
  status: number;
  body: string;
}

describe('SIGTERM under load, to each kind of service', () => {
  let stack: Stack;
  let pool: Pool;
  let token: string;
  const receiver = new WebhookReceiver();
  const posted: Posted[] = [];
  const figures: Record<string, unknown>[] = [];

  beforeAll(async () => {
    buildServices();
    stack = await launchStack({
      mode: 'processes',
      isolate: 'graceful',
      output: 'capture',
      env: {
        LOG_LEVEL: 'warn',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        DATABASE_POOL_SIZE: '4',
        RATE_LIMIT_PER_SECOND: '1000000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT: `${WEBHOOK_TIMEOUT_MS}ms`,
      },
    });
    pool = new Pool({ connectionString: stack.env.DATABASE_URL, max: 2 });
    await stack.admin('clinic', 'upsert', '--ik', CLINIC, '--name', 'Rehaklinik Anhalten', '--departments', '2300');
    await stack.admin('clinic', 'auto-answer', '--ik', CLINIC, '--enabled', 'true');
    await stack.admin('clinic', 'beds', '--ik', CLINIC, '--department', '2300', '--date', DATE, '--free', '1');
    await stack.admin(
      'user',
      'create',
      '--role',
      'referrer',
      '--username',
      'graceful-referrer',
      '--password',
      'graceful-referrer-pw',
      '--ik',
      FIXTURE_REQUESTER_IK,
      '--fhir-base',
      FIXTURE_FHIR_BASE,
    );
    ({ accessToken: token } = await stack.login('graceful-referrer', 'graceful-referrer-pw'));
    const subscribed = await fetch(`${stack.gatewayUrl}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl: await receiver.start() }),
    });
    expect(subscribed.status).toBe(201);
  }, 240_000);

  afterAll(async () => {
    console.log(`SIGTERM under load (budget ${SHUTDOWN_TIMEOUT_MS} ms):\n${figures.map((figure) => JSON.stringify(figure)).join('\n')}`);
    await pool?.end();
    await stack?.stop();
    await receiver.stop();
  }, 60_000);

  it('the grace period of every manifest holds the default budget and the time to close', () => {
    const defaultBudgetMs = 10_000; // libs/config: SHUTDOWN_TIMEOUT_MS
    for (const kind of KINDS) {
      const { graceSeconds, preStopSeconds } = gracePeriodOf(kind);
      expect({ kind, fits: (graceSeconds - preStopSeconds) * 1000 >= defaultBudgetMs + CLOSING_MARGIN_MS }).toEqual({ kind, fits: true });
    }
  });

  it.each(KINDS)(
    '%s: exits 0 within its grace period, not ready from the signal on, while a second instance carries on',
    async (kind) => {
      const { graceSeconds, preStopSeconds } = gracePeriodOf(kind);
      const graceMs = (graceSeconds - preStopSeconds) * 1000;
      const second = `${kind}-2`;
      const instance = await stack.start(second, kind);
      const gateways = [stack.gatewayUrl, ...(kind === 'gateway' ? [instance.url] : [])];
      const load = new BundleLoad(gateways, token, posted, kind).start(4);
      const side = kind === 'auth' ? new SideLoad(`${instance.url}/api/v1/token/login`, loginRequest).start(1) : undefined;
      const pages = kind === 'web' ? new SideLoad(`${instance.url}/inbox/login`, () => ({})).start(2) : undefined;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await sleep(1_500);
      if (kind === 'notifier') {
        // Every answer held until this notifier has exited; it shares the events with the other one,
        // so the signal waits until it has an attempt of its own under way (an event, not a sleep):
        // one that cannot end within its budget. The other notifier may have taken every slot the
        // subscription has (fair delivery), held too: then the answers held so far are let go, and
        // both take the slots that frees again, until this one has one.
        const held: (() => void)[] = [];
        receiver.answer = () => {
          let letGo!: () => void;
          const answerable = new Promise<void>((resolve) => (letGo = resolve));
          held.push(letGo);
          return { status: 204, heldUntil: Promise.race([answerable, released]) };
        };
        const underWay = async () => {
          const metrics = await (await fetch(`${instance.probeUrl}/metrics`)).text();
          const ended = metricSum(metrics, 'webhook_deliveries_succeeded_total') + metricSum(metrics, 'webhook_deliveries_failed_total');
          return metricSum(metrics, 'webhook_deliveries_attempted_total') - ended;
        };
        await waitFor(
          async () => {
            if ((await underWay()) > 0) {
              // Again, with nothing let go in between: an attempt answered just before is recorded by then.
              await sleep(500);
              if ((await underWay()) > 0) return true;
            }
            for (const letGo of held.splice(0)) letGo();
            return false;
          },
          { timeoutMs: 30_000, intervalMs: 1_000, what: 'an attempt of the notifier to be stopped under way' },
        );
      }

      const probes = new ProbeWatch(instance.probeUrl).start();
      const exited = stack.exited(second);
      const signalledAt = performance.now();
      process.kill(instance.pid, 'SIGTERM');
      receiver.answer = () => ({ status: 204 });
      // A service that waited for its work instead of handing it back at its budget (the notifier for
      // the answers held until it exits) would not exit: this bound, the time Kubernetes gives it
      // before SIGKILL, only catches that.
      let graceTimer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([exited, new Promise<'still running'>((resolve) => (graceTimer = setTimeout(() => resolve('still running'), graceMs)))]);
      clearTimeout(graceTimer);
      const stopMs = Math.round(performance.now() - signalledAt);
      release();
      if (exit === 'still running') await stack.kill(second);
      else await stack.stopInstance(second);
      const answers = await probes.stop();
      await sleep(1_000);
      await load.stop();
      const sideRequests = [...((await side?.stop()) ?? []), ...((await pages?.stop()) ?? [])];

      const output = instance.output();
      const handedBack = [...output.matchAll(/"handedBack":(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
      // The handed-back attempts, sent again by the other notifier as soon as the subscription has
      // room (at most 8 in flight over every notifier: fair delivery), which it has once they are
      // handed back, not after their lease (WEBHOOK_TIMEOUT + 5 s = 65 s): 30 s only catches a wait
      // for the lease. How long after this one's exit they came is a figure.
      const exitedAt = signalledAt + stopMs;
      const resendOf = () => receiver.received.filter((webhook) => webhook.attempt > 1);
      if (kind === 'notifier' && handedBack > 0) {
        await waitFor(() => resendOf().length >= handedBack, { timeoutMs: 30_000, intervalMs: 100, what: 'the handed-back attempts sent again' });
      }
      const resent = resendOf();
      const resentWithinMs = Math.round(Math.max(0, ...resent.map((webhook) => webhook.receivedAt - exitedAt)));
      const answered = answers.filter((answer) => answer.status !== 0);
      figures.push({ kind, exit, stopMs, readiness: [...new Set(answered.map((answer) => answer.status))], handedBack, resentWithinMs });
      expect({ kind, exit }).toEqual({ kind, exit: { code: 0, signal: null } });
      // Not ready from the signal on, by the order of events rather than a margin of time. The probes
      // go one after another, each sent once the one before was answered. The instance has the signal
      // by the end of the turn of its event loop that read the first probe sent after it, and runs its
      // handler in that turn or the next: only that probe and the next one may have been read before.
      const sentAfterSignal = answers.filter((answer) => answer.sentAt > signalledAt);
      expect(sentAfterSignal.slice(2).filter((answer) => answer.status === 200)).toEqual([]);
      // Requests sent before the signal were answered, not cut. One sent after it may meet the port
      // closing (a connection still in the closed port's backlog is reset, whatever the client reads
      // of it): a client sends it again elsewhere.
      expect(sideRequests.filter((request) => request.error && request.sentAt < signalledAt)).toEqual([]);
      if (side || pages) expect(sideRequests.length).toBeGreaterThan(0);
      if (kind === 'notifier') {
        // It exited while the receiver still held every answer: it did not wait for them, it handed
        // its attempts back, and the other notifier sent them again.
        expect(handedBack).toBeGreaterThan(0);
        expect(resent.length).toBeGreaterThanOrEqual(handedBack);
      }
    },
    90_000,
  );

  it('lost nothing: every bundle answered 202 is stored exactly once, and its webhook arrived', async () => {
    const accepted = posted.filter((post) => post.status === 202).map((post) => post.identifier);
    expect(accepted.length).toBeGreaterThan(100);
    // No answer but a refused connection (it never reached a gateway), or a keep-alive connection
    // closed under the request: a gateway closes an idle connection (a stopping one after 250 ms, any
    // after its keep-alive timeout) just as the client sends on it, a race HTTP/1.1 keep-alive cannot
    // rule out (one such POST in a clean-clone run here). Such a request was not taken: it is not
    // stored. One that a gateway took and then cut would be stored (checked below).
    const unanswered = posted.filter((post) => post.status !== 202 && !post.error?.includes('ECONNREFUSED'));
    expect(unanswered.filter((post) => !/other side closed|ECONNRESET/.test(post.error ?? ''))).toEqual([]);
    // The request's id: the last part of its identifier, and of the one its Task is based on.
    const idOf = (identifier: string) => identifier.split('/').pop() ?? '';
    await waitFor(
      () => {
        const answered = new Set(receiver.accepted().map((webhook) => idOf(requestOf(webhook.body))));
        return accepted.every((identifier) => answered.has(idOf(identifier)));
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'a webhook for every accepted bundle' },
    );
    const { rows } = await pool.query<{ identifier: string; requests: number; versions: number }>(
      `SELECT r.identifier, count(DISTINCT r.id)::int AS requests, count(v.version)::int AS versions
         FROM "${stack.env.INTAKE_DB_SCHEMA}".admission_request r JOIN "${stack.env.INTAKE_DB_SCHEMA}".request_version v ON v.request_id = r.id
        WHERE r.identifier = ANY($1) GROUP BY r.identifier`,
      [accepted],
    );
    expect(rows.filter((row) => row.requests !== 1 || row.versions !== 1)).toEqual([]);
    expect(rows.length).toBe(accepted.length);
    const { rows: takenUnanswered } = await pool.query<{ identifier: string }>(
      `SELECT identifier FROM "${stack.env.INTAKE_DB_SCHEMA}".admission_request WHERE identifier = ANY($1)`,
      [unanswered.map((post) => post.identifier)],
    );
    expect(takenUnanswered).toEqual([]);
    figures.push({
      accepted: accepted.length,
      webhooks: receiver.received.length,
      resent: receiver.received.filter((webhook) => webhook.attempt > 1).length,
      closedUnderRequest: unanswered.map((post) => post.phase),
    });
  }, 90_000);
});

/** The grace period of a service's Deployment and the part of it its preStop hook sleeps. */
function gracePeriodOf(service: ServiceName): { graceSeconds: number; preStopSeconds: number } {
  const documents = parseAllDocuments(readFileSync(join(root, 'deploy', 'base', 'services', `${service}.yaml`), 'utf8')).map((document) => document.toJS());
  const deployment = documents.find((document) => document?.kind === 'Deployment');
  const pod = deployment.spec.template.spec;
  // Kubernetes' default when the manifest names none.
  return { graceSeconds: pod.terminationGracePeriodSeconds ?? 30, preStopSeconds: pod.containers[0].lifecycle?.preStop?.sleep?.seconds ?? 0 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const loginRequest = () => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'graceful-referrer', password: 'graceful-referrer-pw' }),
});

/**
 * POSTs of new bundles, each worker back to back, round robin over the gateways. A POST that finds
 * a gateway's port closed (ECONNREFUSED: it never reached it) goes to the next one, as a client
 * behind a balancer would; any other failure is recorded.
 */
class BundleLoad {
  private stopped = false;
  private readonly workers: Promise<void>[] = [];
  private next = 0;

  constructor(
    private readonly gateways: readonly string[],
    private readonly token: string,
    private readonly posted: Posted[],
    private readonly phase: ServiceName,
  ) {}

  start(concurrency: number): this {
    for (let worker = 0; worker < concurrency; worker++) this.workers.push(this.work());
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
      const body = JSON.stringify(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: DATE }));
      this.posted.push(await this.post(identifier, body));
      await sleep(10);
    }
  }

  private async post(identifier: string, body: string): Promise<Posted> {
    let refused = '';
    for (let tries = 0; tries < this.gateways.length; tries++) {
      const gateway = this.gateways[this.next++ % this.gateways.length]!;
      try {
        const response = await fetch(`${gateway}/api/v2/fhir/Bundle`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/fhir+json' },
          body,
        });
        await response.arrayBuffer();
        return { identifier, phase: this.phase, status: response.status };
      } catch (error) {
        const reason = String((error as Error).cause ?? error);
        if (!reason.includes('ECONNREFUSED')) return { identifier, phase: this.phase, status: 0, error: reason };
        refused = reason;
      }
    }
    return { identifier, phase: this.phase, status: 0, error: refused };
  }
}

/** Requests to the instance being stopped, back to back, until its port is closed. */
class SideLoad {
  private stopped = false;
  private readonly workers: Promise<void>[] = [];
  private readonly answered: { sentAt: number; status: number; error?: string }[] = [];

  constructor(
    private readonly url: string,
    private readonly init: () => RequestInit,
  ) {}

  start(concurrency: number): this {
    for (let worker = 0; worker < concurrency; worker++) this.workers.push(this.work());
    return this;
  }

  async stop(): Promise<{ sentAt: number; status: number; error?: string }[]> {
    this.stopped = true;
    await Promise.all(this.workers);
    return this.answered;
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const sentAt = performance.now();
      try {
        // A connection per request: on a kept-alive one, the instance closing it as idle just as a
        // request goes out is a race of HTTP/1.1 keep-alive, not a request it took and cut.
        const init = this.init();
        const response = await fetch(this.url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), connection: 'close' } });
        await response.arrayBuffer();
        this.answered.push({ sentAt, status: response.status });
      } catch (error) {
        const reason = String((error as Error).cause ?? error);
        // The port is closed: the instance takes no more work.
        if (reason.includes('ECONNREFUSED')) return;
        this.answered.push({ sentAt, status: 0, error: reason });
      }
    }
  }
}

/** GET /health/ready one after another, 20 ms apart, until stopped: when each was sent and what it answered (0: no answer). */
class ProbeWatch {
  private stopped = false;
  private readonly answers: ProbeAnswer[] = [];
  private running?: Promise<void>;

  constructor(private readonly probeUrl: string) {}

  start(): this {
    this.running = this.work();
    return this;
  }

  async stop(): Promise<ProbeAnswer[]> {
    this.stopped = true;
    await this.running;
    return this.answers;
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const sentAt = performance.now();
      const answer = await fetch(`${this.probeUrl}/health/ready`).then(
        async (response) => ({ sentAt, status: response.status, body: await response.text() }),
        () => ({ sentAt, status: 0, body: '' }),
      );
      this.answers.push(answer);
      await sleep(20);
    }
  }
}
