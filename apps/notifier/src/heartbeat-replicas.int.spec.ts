import { WebhookReceiver, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { declareTopology } from '@bedrequest/contracts';
import { declareBrokerTopology } from '@bedrequest/messaging';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { startNotifier, type RunningNotifier } from './start';
import { SubscriptionsApi, notifierConfig, notifierEnvironment, removeTopology } from './testing/notifier-test-kit';
import { subscribedParty } from './testing/notifier-under-test';

/**
 * Heartbeats with several notifier processes on one schema (docs/webhooks.md, "Heartbeats"): each
 * looks for due heartbeats every 100 ms, and a subscription still gets one per interval, not one
 * per process.
 */
describe('heartbeats with three notifiers on one schema', () => {
  const namespace = uniqueName('notifier');
  const topology = declareTopology(namespace);
  const receiver = new WebhookReceiver();
  const notifiers: RunningNotifier[] = [];
  let authority: TestAuthority;
  let api: SubscriptionsApi;

  beforeAll(async () => {
    authority = await TestAuthority.start();
    await declareBrokerTopology(testEnvironment().amqpUrl, topology, 5);
    await receiver.start();
    const schema = uniqueName('notifier');
    const settings = { WEBHOOK_HEARTBEAT_MIN: '1s', WEBHOOK_HEARTBEAT_CHECK_INTERVAL: '100ms' };
    for (let n = 0; n < 3; n += 1) notifiers.push(await startNotifier(notifierConfig(notifierEnvironment({ namespace, schema, authority, settings }))));
    api = new SubscriptionsApi(notifiers[0]!.url, authority);
  });

  afterAll(async () => {
    for (const notifier of notifiers) await notifier.stop();
    await receiver.stop();
    await authority.stop();
    await removeTopology(topology);
  });

  it('sends one heartbeat per interval, whichever process claims it', async () => {
    const { party, subscription } = await subscribedParty(api, receiver);
    expect((await api.call(party, 'PUT', `/${subscription.id}`, { callbackUrl: receiver.url, heartbeatSeconds: 1 })).status).toBe(200);

    await waitFor(() => receiver.accepted().length >= 4, { what: 'four heartbeats', timeoutMs: 10_000 });
    const arrivals = receiver.accepted().map((webhook) => webhook.receivedAt);
    const gaps = arrivals.slice(1).map((at, n) => at - arrivals[n]!);
    // An interval apart (less the 100 ms a process may look late), never two of one interval.
    expect(gaps.every((gap) => gap > 850)).toBe(true);
    expect(receiver.accepted().every((webhook) => webhook.verified && webhook.body.type === 'Heartbeat')).toBe(true);
    expect(new Set(receiver.accepted().map((webhook) => webhook.id)).size).toBe(receiver.accepted().length);
  });
});
