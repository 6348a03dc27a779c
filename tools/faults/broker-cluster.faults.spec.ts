import { RabbitMqCluster, TcpProxy, waitFor } from '@bedrequest/testing';
import { SERVICES, type Instance } from '@bedrequest/stack';
import {
  RATE_WINDOW_MS,
  acceptedRate,
  bundlePostsOf,
  connectionsOn,
  leaderAmong,
  quorumPlacement,
  rateBackAt,
  type QuorumPlacement,
} from './support/broker-cluster';
import { CLINIC, FaultFixture, saveServiceLogs, type StoredCounts } from './support/fault-fixture';
import { byStatus, reportFigures, seconds } from './support/figures';
import { BundleLoad, accepted, bundleSource, inPhase, type PostRecord } from './support/load';
import { WEBHOOK_RETRY_SCHEDULE } from './scenarios/webhook-outage';
import { OutageReceiver } from './support/webhook-receiver';

/**
 * A three-node RabbitMQ cluster and two instances of every service, each connecting to the cluster
 * with all three addresses (docs/operations.md, "A broker cluster"). Under a steady load the node
 * that leads intake's queue is stopped, later started again, and then one instance of each service
 * is killed. Proved: nothing that got a 202 is lost or stored twice, every webhook arrives, every
 * POST is answered 202 or 503 with Retry-After (no answer only for one in flight at the killed
 * gateway), and bundles are answered 202 again while the node is down, once it is back and after
 * the kills: at least ACCEPTED_PER_STEP for POSTs sent and answered in each of those phases
 * (BundleLoad.phase), each within HANG_MS, a bound that only catches a hang.
 *
 * How soon the rate of 202s was back at 80 % of its level before the fault, and how high it was for
 * the rest of the outage, are figures, not claims.
 *
 * The cluster is three nodes of the test's own beside the machine's broker (RabbitMqCluster: free
 * ports, one Erlang scheduler each, stopped by their own pids); the stack is provisioned on it
 * (rabbitmqctl -n on its first node), so its quorum queues have a member on every node. The load
 * goes through a round-robin balancer before the two gateways. Every bundle names a clinic that
 * does not offer the department, which is declined at once: one webhook per accepted bundle.
 */
const LOAD = { concurrency: 4, minIntervalMs: 100 };
/** The rate before the fault (a figure) is measured over this long, right before it. */
const BEFORE_MS = 10_000;
/** The leader's node stays down at least this long (and until the 202s while it is down came). */
const DOWN_MS = 30_000;
/** 202s for POSTs sent and answered in each phase: while the node is down, once it is back, after the kills. */
const ACCEPTED_PER_STEP = 20;
/** A bound on each wait that only catches a hang. */
const HANG_MS = 120_000;
const DECLINING = { ik: '519900031', name: 'Herzklinik Cluster', departments: '0300' };
/** What the fault is doing while a POST is sent and answered (BundleLoad.phase). */
type Phase = 'before' | 'stopping' | 'node down' | 'starting' | 'node back' | 'killing' | 'after kills';
const PHASES: readonly Phase[] = ['before', 'stopping', 'node down', 'starting', 'node back', 'killing', 'after kills'];

describe('a broker cluster loses the node that leads intake’s queue under load, then one instance of each service dies', () => {
  let cluster: RabbitMqCluster | undefined;
  let faults: FaultFixture | undefined;
  let balancer: TcpProxy | undefined;
  let balancerUrl = '';
  let receiver: OutageReceiver | undefined;
  let posts: PostRecord[] = [];
  let placement: QuorumPlacement | undefined;
  const times = {
    stopAt: 0,
    stoppedAt: 0,
    leaderMovedAt: 0,
    acceptedWhileDownAt: 0,
    startingAt: 0,
    backAt: 0,
    killAt: 0,
    killedAt: 0,
    rateBackAt: undefined as number | undefined,
  };
  let levelBefore = 0;
  let counts: (StoredCounts & { accepted: number; settledMs: number }) | undefined;
  let webhooksMissing: string[] | undefined;
  /** Where the missing webhooks stood in the notifier (FaultFixture.deliveryStates). */
  let missingStates = '';
  let duplicateWebhooks = 0;
  let rejoined: QuorumPlacement | undefined;
  /** The services' connections on the node that was stopped: theirs had to move. */
  let onStoppedNode = '';
  /** Each gateway's answers to the POSTs until the kills (the balancer takes turns per connection, not per request). */
  let perGateway = '';
  /** Every instance, kept before the kills: what each wrote is saved when the test ends. */
  let instances: Instance[] = [];

  beforeAll(async () => {
    cluster = await RabbitMqCluster.start('faultmq', 3);
    faults = await FaultFixture.start(
      'cluster',
      {
        AMQP_URL: cluster.amqpUrl,
        RABBITMQCTL: `rabbitmqctl -n ${cluster.nodes[0]!.node}`,
        INTAKE_VERDICT_TIMEOUT_MS: '1000',
        DATABASE_POOL_SIZE: '4',
        // A webhook attempt that failed is tried again within seconds, not after the production
        // schedule's 5 s, 30 s and 2 min: the fault is about the broker and the kills, and the
        // webhooks are awaited 90 s. (One run missed 102 of 2,361 webhooks after those 90 s; where
        // they stood was not recorded then: the figures say it now.)
        WEBHOOK_RETRY_SCHEDULE,
        // Warnings too: a lost broker connection, a round over the nodes that failed, and why a POST
        // was answered 503 (saved per instance when the test ends, see saveServiceLogs).
        LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'warn',
      },
      { replicas: 2 },
    );
    balancer = new TcpProxy(['gateway', 'gateway-2'].map((name) => ({ host: '127.0.0.1', port: faults!.stack.instance(name).port })));
    balancerUrl = `http://127.0.0.1:${await balancer.start()}`;
    await faults.admin('clinic', 'upsert', '--ik', DECLINING.ik, '--name', DECLINING.name, '--departments', DECLINING.departments);
    receiver = await OutageReceiver.onFreeLowPort();
    const subscribed = await fetch(`${faults.gatewayUrl}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${faults.referrer.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl: receiver.url }),
    });
    expect(subscribed.status).toBe(201);
    receiver.secret = ((await subscribed.json()) as { secret: string }).secret;
    await receiver.up();
  }, 240_000);

  afterAll(async () => {
    const stopAt = times.stopAt;
    const back = times.rateBackAt;
    const whileMoving = posts.filter((post) => post.sentAt >= stopAt && post.sentAt < times.leaderMovedAt);
    const whileDown = posts.filter((post) => post.sentAt >= stopAt && post.sentAt < times.startingAt);
    const rateAfter = back === undefined ? 0 : acceptedRate(posts, back, times.startingAt);
    reportFigures(
      'broker cluster: leader node stopped, one instance of each service killed',
      `${posts.length} POSTs through 2 gateways (${byStatus(posts.map((post) => post.status))}; until the kills ${perGateway || '?'}), ${levelBefore.toFixed(1)} accepted/s before the fault; ` +
        `intake's queue on ${placement?.members.length ?? '?'} nodes; its leader's node stopped (gone ${seconds(times.stoppedAt - stopAt)} after SIGTERM; connections on it: ${onStoppedNode || 'none'}), ` +
        `a new leader seen ${seconds(times.leaderMovedAt - stopAt)} after the stop; while it moved: ${whileMoving.filter((post) => post.status === 503).length} 503s ` +
        `(${byStatus(whileMoving.map((post) => post.status))}), while the node was down: ${whileDown.filter((post) => post.status === 503).length} 503s of ${whileDown.length} POSTs; ` +
        `${ACCEPTED_PER_STEP} 202s while it was down ${seconds(times.acceptedWhileDownAt - stopAt)} after the stop; ` +
        `rate ≥ 80 % of the level before again ${back === undefined ? 'not while the node was down' : `${seconds(back - stopAt)} after the stop`} ` +
        `(${RATE_WINDOW_MS / 1000} s windows), ${rateAfter.toFixed(1)} accepted/s for the rest of the outage (${levelBefore > 0 ? Math.round((100 * rateAfter) / levelBefore) : '?'} %) (figures, not claims); node back ${seconds(times.backAt - times.startingAt)} after its start, ` +
        `a member again: ${rejoined ? 'yes' : '?'}; kill -9 of one instance of each service: ${byStatus(posts.filter((post) => post.sentAt >= times.killAt - 2_000 && post.sentAt < times.killAt + 3_000).map((post) => post.status))} around it; ` +
        `by phase: ${PHASES.map((phase) => `${phase} ${byStatus(inPhase(posts, phase).map((post) => post.status)) || 'none'}`).join('; ')}; ` +
        `${counts?.storedOnce ?? '?'} of ${counts?.accepted ?? '?'} 202s stored exactly once, ${counts?.missing.length ?? '?'} lost, ${counts?.duplicated.length ?? '?'} twice; ` +
        `webhooks: ${webhooksMissing === undefined ? '?' : `${(counts?.accepted ?? 0) - webhooksMissing.length} of ${counts?.accepted ?? '?'} arrived`} (${duplicateWebhooks} twice)` +
        (missingStates ? `; the missing ones in the notifier: ${missingStates}` : ''),
    );
    // LOG_LEVEL warn: lost connections, rounds over the nodes, the cause of each 503.
    const logs = saveServiceLogs(
      `${faults?.namespace ?? 'cluster'}`,
      instances,
      Object.entries(times)
        .map(([name, at]) => `${name}: ${at ? new Date(at).toISOString() : '-'}`)
        .join('\n'),
    );
    if (logs) console.log(`broker cluster fault: what the services wrote is in ${logs}`);
    await receiver?.down().catch(() => undefined);
    await balancer?.stop().catch(() => undefined);
    await faults?.stop().catch((error: unknown) => console.warn(`stopping the cluster stack: ${String(error)}`));
    await cluster?.remove();
  }, 120_000);

  it('loses and doubles nothing, delivers every webhook, and answers 202 while the node is down, once it is back and after the kills', async () => {
    const stack = faults!.stack;
    instances = stack.instances();
    const intakeQueue = faults!.queue('intake');
    placement = await quorumPlacement(cluster!.nodes[0]!, intakeQueue);
    expect(placement?.members).toEqual(cluster!.nodes.map((node) => node.node).sort());
    const leader = cluster!.node(placement!.leader);

    const load = new BundleLoad({
      gatewayUrl: balancerUrl,
      token: faults!.referrer.token,
      bundles: bundleSource(faults!.referrer, [CLINIC.ik, DECLINING.ik]),
      ...LOAD,
    });
    const acceptedIn = (phase: Phase) => (answered: readonly PostRecord[]) => accepted(inPhase(answered, phase)).length >= ACCEPTED_PER_STEP;
    const step = (phase: Phase) => load.until(acceptedIn(phase), `${ACCEPTED_PER_STEP} 202s in phase "${phase}"`, HANG_MS);
    load.start();
    try {
      // The level before the fault, a figure, is measured over BEFORE_MS of steady load.
      await new Promise((resolve) => setTimeout(resolve, BEFORE_MS + 2_000));
      await step('before');
      times.stopAt = Date.now();
      levelBefore = acceptedRate(load.posts, times.stopAt - BEFORE_MS, times.stopAt);

      const connected = await connectionsOn(leader);
      onStoppedNode = [...connected].map(([user, count]) => `${user.slice(faults!.namespace.length + 1)}×${count}`).join(', ');
      // The leader's node goes: SIGTERM to its own process, and it is gone.
      load.phase = 'stopping';
      await leader.stop();
      times.stoppedAt = Date.now();
      load.phase = 'node down';
      await waitFor(() => leaderAmong(cluster!, intakeQueue, leader.node), { timeoutMs: HANG_MS, intervalMs: 250, what: 'a new leader of intake’s queue' });
      times.leaderMovedAt = Date.now();
      await step('node down');
      times.acceptedWhileDownAt = Date.now();
      // It stays down DOWN_MS in all, for the figures of the outage.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, times.stopAt + DOWN_MS - Date.now())));

      load.phase = 'starting';
      times.startingAt = Date.now();
      await leader.start();
      times.backAt = Date.now();
      rejoined = await waitFor(
        async () => {
          const seen = await quorumPlacement(leader, intakeQueue).catch(() => undefined);
          return seen?.members.length === cluster!.nodes.length ? seen : undefined;
        },
        { timeoutMs: HANG_MS, intervalMs: 500, what: 'the restarted node among the queue’s members' },
      );
      load.phase = 'node back';
      await step('node back');

      perGateway = (
        await Promise.all(
          ['gateway', 'gateway-2'].map(async (name) => {
            const answers = await bundlePostsOf(stack.instance(name).probeUrl).catch(() => undefined);
            return `${name} ${answers ? [...answers].map(([status, count]) => `${status}×${count}`).join(', ') : '?'}`;
          }),
        )
      ).join('; ');
      // Then one instance of each service dies without any clean-up.
      load.phase = 'killing';
      times.killAt = Date.now();
      await Promise.all(SERVICES.map((service) => stack.kill(`${service}-2`, 'SIGKILL')));
      times.killedAt = Date.now();
      load.phase = 'after kills';
      await step('after kills');
    } finally {
      posts = await load.stop();
    }
    times.rateBackAt = rateBackAt(posts, times.stopAt, 0.8 * levelBefore, times.startingAt);

    counts = await faults!.settleAccepted(posts, 120_000);
    const acceptedIds = accepted(posts).map((post) => requestId(post.identifier));
    const arrived = () => new Set(receiver!.arrived.map((webhook) => requestId(webhook.requestIdentifier)));
    await waitFor(() => acceptedIds.every((id) => arrived().has(id)), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: 'a webhook for every accepted bundle',
    }).catch(() => undefined);
    webhooksMissing = acceptedIds.filter((id) => !arrived().has(id));
    if (webhooksMissing.length) {
      const sentAt = new Map(accepted(posts).map((post) => [requestId(post.identifier), post.sentAt]));
      const since = (at: number | undefined) => (at === undefined ? '?' : seconds(at - times.stopAt));
      const sent = webhooksMissing.map((id) => sentAt.get(id)).filter((at): at is number => at !== undefined);
      missingStates = `${await faults!.deliveryStates(webhooksMissing)} (POSTed ${since(Math.min(...sent))} to ${since(Math.max(...sent))} after the stop, the kills ${since(times.killAt)})`;
    }
    duplicateWebhooks = receiver!.arrived.length - new Set(receiver!.arrived.map((webhook) => webhook.id)).size;

    expect(counts.missing).toEqual([]);
    expect(counts.duplicated).toEqual([]);
    expect(counts.storedOnce).toBe(acceptedIds.length);
    expect(webhooksMissing).toEqual([]);
    // Refused while the broker could not take a message: 503 with Retry-After. No answer at all
    // only for a POST in flight at the gateway that was killed: answered (cut) after the kill
    // began, sent before the killed processes were gone or just after (its connection's close
    // still on its way through the balancer).
    const killWindow = (post: PostRecord) => post.answeredAt >= times.killAt && post.sentAt <= times.killedAt + 1_000;
    expect(posts.filter((post) => !(post.status === 202 || (post.status === 503 && post.retryAfter) || (post.status === 0 && killWindow(post))))).toEqual([]);
    for (const phase of ['before', 'node down', 'node back', 'after kills'] as const) {
      expect({ phase, accepted: accepted(inPhase(posts, phase)).length >= ACCEPTED_PER_STEP }).toEqual({ phase, accepted: true });
    }
  });
});

/** The request's UUID, the last part of its identifier (however the webhook spells the identifier). */
function requestId(identifier: string): string {
  return identifier.slice(identifier.lastIndexOf('/') + 1);
}
