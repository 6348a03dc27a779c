import { WebhookReceiver, requestOf, waitFor } from '@bedrequest/testing';
import { requestIdentifier } from './testing/notifier-test-kit';
import { notifierUnderTest, subscribedParty } from './testing/notifier-under-test';

/**
 * One party's slow receiver must not delay everyone's webhooks (docs/webhooks.md, "Fair delivery").
 * Three referrers whose subscriptions point at one receiver (one origin) that holds every call
 * unanswered, with 30 events each waiting; then another referrer's events, to a receiver of its
 * own. The notifier has 64 slots (WEBHOOK_CONCURRENCY's default): without caps the stalled origin
 * takes them all and the other referrer's webhooks wait for its calls to end. With them, a
 * subscription has at most 8 attempts in flight and an origin 16 (counted in the claim statement,
 * so over every notifier process), and claims take turns between subscriptions.
 *
 * The proof is one of order, not of time: the other referrer's webhooks all arrive while every call
 * to the stalled receiver is still held (it answers none of them before the test lets it), so they
 * were not queued behind it. How soon they arrive is the bench's; the bounds here only catch a hang.
 * WEBHOOK_TIMEOUT is longer than those bounds, so no stalled call ends by the notifier giving up on it.
 */
describe('fair delivery: caps per subscription and per origin', () => {
  const notifier = notifierUnderTest({ WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: '8', WEBHOOK_MAX_IN_FLIGHT_PER_ORIGIN: '16', WEBHOOK_TIMEOUT: '120s' });
  const stalled = new WebhookReceiver();
  const prompt = new WebhookReceiver();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  beforeAll(async () => {
    await stalled.start();
    await prompt.start();
    stalled.answer = () => ({ status: 204, heldUntil: released });
  });
  afterAll(async () => {
    release();
    await stalled.stop();
    await prompt.stop();
  });

  it("delivers another referrer's webhooks while a receiver holds every call of three others unanswered", async () => {
    const stalledParties = await Promise.all(Array.from({ length: 3 }, () => subscribedParty(notifier.api, stalled)));
    const requestsOf = new Map<string, string>();
    // Interleaved, as three referrers' clinics answer at the same time.
    for (let n = 0; n < 30; n++) {
      for (const { party } of stalledParties) {
        const identifier = requestIdentifier();
        requestsOf.set(identifier, party);
        await notifier.publish({ partyId: party, requestIdentifier: identifier });
      }
    }
    await waitFor(() => stalled.received.length >= 16, { timeoutMs: 30_000, what: 'the stalled receiver holding 16 attempts' });

    const { party } = await subscribedParty(notifier.api, prompt);
    for (let n = 0; n < 5; n++) await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => prompt.accepted().length === 5, { timeoutMs: 30_000, what: "the other referrer's 5 webhooks" });

    // Every call to the stalled receiver is still held: none has been answered (the test has not let
    // it) and none given up (WEBHOOK_TIMEOUT is 120 s). So what it received is what was in flight at
    // once, and the other referrer's webhooks did not wait for any of it.
    expect(stalled.received.length).toBe(16);
    const perParty = new Map<string, number>();
    for (const webhook of stalled.received) {
      const owner = requestsOf.get(requestOf(webhook.body))!;
      perParty.set(owner, (perParty.get(owner) ?? 0) + 1);
    }
    expect(Math.max(...perParty.values())).toBeLessThanOrEqual(8);
    expect(perParty.size).toBe(3);

    // Let the stalled receiver answer: the calls it held end, and the notifier goes on with the rest.
    release();
    await waitFor(() => stalled.received.length > 16, { timeoutMs: 30_000, what: 'the stalled origin served again once it answers' });
  }, 120_000);
});
