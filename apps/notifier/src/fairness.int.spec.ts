import { WebhookReceiver, requestOf, waitFor } from '@bedrequest/testing';
import { requestIdentifier } from './testing/notifier-test-kit';
import { notifierUnderTest, subscribedParty } from './testing/notifier-under-test';

/**
 * One party's slow receiver must not delay everyone's webhooks (issue 26, point 3). Three referrers
 * whose subscriptions point at one receiver (one origin) that answers each call after 10 s, with 30
 * events each waiting; then another referrer's events, to a receiver of its own. The notifier has
 * 64 slots (WEBHOOK_CONCURRENCY's default): without caps the stalled origin takes them all and the
 * other referrer waits 10 s. With them, a subscription has at most 8 attempts in flight and an
 * origin 16 (counted in the claim statement, so over every notifier process), and claims take
 * turns between subscriptions.
 */
describe('fair delivery: caps per subscription and per origin', () => {
  const notifier = notifierUnderTest({ WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: '8', WEBHOOK_MAX_IN_FLIGHT_PER_ORIGIN: '16', WEBHOOK_TIMEOUT: '15s' });
  const stalled = new WebhookReceiver();
  const prompt = new WebhookReceiver();
  beforeAll(async () => {
    await stalled.start();
    await prompt.start();
    stalled.answer = () => ({ status: 204, delayMs: 10_000 });
  });
  afterAll(async () => {
    await stalled.stop();
    await prompt.stop();
  });

  it("delivers another referrer's webhooks within 2 s while a receiver stalls 10 s per call for three others", async () => {
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
    await waitFor(() => stalled.received.length >= 16, { what: 'the stalled receiver holding 16 attempts' });

    const { party } = await subscribedParty(notifier.api, prompt);
    const sentAt = performance.now();
    for (let n = 0; n < 5; n++) await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => prompt.accepted().length === 5, { timeoutMs: 2_000, intervalMs: 20, what: "the other referrer's 5 webhooks within 2 s" });
    expect(Math.max(...prompt.accepted().map((webhook) => webhook.receivedAt)) - sentAt).toBeLessThan(2_000);

    // Nothing of the stalled origin was answered yet: what it received is what was in flight at once.
    expect(stalled.received.length).toBe(16);
    const perParty = new Map<string, number>();
    for (const webhook of stalled.received) {
      const owner = requestsOf.get(requestOf(webhook.body))!;
      perParty.set(owner, (perParty.get(owner) ?? 0) + 1);
    }
    expect(Math.max(...perParty.values())).toBeLessThanOrEqual(8);
    expect(perParty.size).toBe(3);
  }, 30_000);
});
