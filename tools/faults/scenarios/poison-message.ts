import { randomUUID } from 'node:crypto';
import { AdmissionBundleSubmittedV1, createEnvelope } from '@bedrequest/contracts';
import { waitFor } from '@bedrequest/testing';
import { CLINIC, type FaultFixture } from '../support/fault-fixture';
import { reportFigures, seconds } from '../support/figures';
import { BundleLoad, accepted, admissionSubmission, bundleSource, type PostRecord } from '../support/load';

/**
 * A poison message is dead-lettered after exactly the configured delivery limit
 * (docs/architecture.md, "Message backbone"), and other traffic keeps flowing meanwhile: intake
 * commits other requests, and every POST alongside is answered 202 and stored.
 *
 * The poison: an admission.bundle.submitted.v1 with a valid bundle whose `submitter.partyId`
 * contains U+0000. It passes the message contract (`partyId` is any non-empty string), so the
 * broker hands it to intake's handler, and every time PostgreSQL refuses to store the NUL
 * character (text cannot hold it): the handler throws, the message goes back to the queue, until
 * the quorum queue's `x-delivery-limit` (AMQP_DELIVERY_LIMIT) is exceeded and it lands in
 * `<queue>.dead-letter`. The gateway can never publish it (the party id comes from the access
 * token), so it stands for a message from a faulty publisher.
 *
 * RabbitMQ 3.10 dead-letters a message returned more than `x-delivery-limit` times: the first
 * delivery plus `limit` redeliveries (libs/messaging/src/broker.int.spec.ts). Intake logs every
 * failed delivery with the message id and `previousDeliveries` (0 on the first), which the test
 * reads from the process's log; the dead-lettered copy names `delivery_limit` as its reason.
 * Within each delivery the handler is tried AMQP_HANDLER_RETRIES more times in-process first; the
 * side-by-side stack sets that to 1 (default 6, about 16–31 s per delivery), so that the six
 * deliveries take seconds rather than minutes.
 */
export async function poisonMessage(faults: FaultFixture): Promise<void> {
  const limit = Number(faults.stack.env.AMQP_DELIVERY_LIMIT ?? 5);
  const bundles = bundleSource(faults.referrer, [CLINIC.ik]);
  const poison = createEnvelope(
    AdmissionBundleSubmittedV1,
    admissionSubmission({ partyId: `poison\u0000${randomUUID()}`, ikNumbers: [faults.referrer.ik], fhirBase: faults.referrer.fhirBase }, bundles.next().body),
    { correlationId: 'poison-message' },
  );
  let deliveries: number[] = [];
  let deadLetter: Record<string, unknown> | undefined;
  let posts: PostRecord[] = [];
  let lifetime = 0;
  let committedMeanwhile = 0;
  try {
    const broker = await faults.broker();
    const meanwhile = new BundleLoad({ gatewayUrl: faults.gatewayUrl, token: faults.referrer.token, bundles, concurrency: 2, minIntervalMs: 50 }).start();
    let publishedAt = 0;
    let deadLetteredAt = 0;
    try {
      await waitFor(() => meanwhile.answered >= 20, { timeoutMs: 60_000, what: 'traffic before the poison' });
      publishedAt = Date.now();
      await broker.publishEnvelope(AdmissionBundleSubmittedV1.routingKey, poison);
      deadLetter = await waitFor(() => faults.takeDeadLettered('intake', poison.id), {
        timeoutMs: 120_000,
        intervalMs: 200,
        what: 'the poison message in the dead-letter queue',
      });
      deadLetteredAt = Date.now();
      lifetime = deadLetteredAt - publishedAt;
    } finally {
      posts = await meanwhile.stop();
    }
    // Other requests intake committed while it kept failing on the poison.
    const { rows } = await faults.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${faults.schema('intake')}".admission_request WHERE created_at > $1 AND created_at < $2`,
      [new Date(publishedAt), new Date(deadLetteredAt)],
    );
    committedMeanwhile = rows[0]!.n;
    deliveries = failedDeliveries(faults.stack.instance('intake').output(), poison.id);
    const stored = await faults.settleAccepted(posts, 60_000);

    expect(deliveries).toEqual(Array.from({ length: limit + 1 }, (_item, index) => index));
    expect(deadLetter).toMatchObject({ 'x-first-death-reason': 'delivery_limit', 'x-first-death-queue': faults.queue('intake') });
    expect(committedMeanwhile).toBeGreaterThan(0);
    expect(posts.filter((post) => post.status !== 202)).toEqual([]);
    expect(stored.missing).toEqual([]);
    expect(stored.duplicated).toEqual([]);
  } finally {
    reportFigures(
      'poison message',
      `dead-lettered after ${deliveries.length} deliveries (first + ${Math.max(deliveries.length - 1, 0)} redeliveries; AMQP_DELIVERY_LIMIT=${limit}, AMQP_HANDLER_RETRIES=${faults.stack.env.AMQP_HANDLER_RETRIES ?? 6}) in ${seconds(lifetime)}, ` +
        `reason ${String(deadLetter?.['x-first-death-reason'] ?? '?')}; meanwhile intake committed ${committedMeanwhile} other requests, ` +
        `and ${accepted(posts).length} of ${posts.length} POSTs alongside were answered 202 and stored`,
    );
  }
}

/**
 * `previousDeliveries` of every delivery of the message that failed, in order: the broker logs one
 * error line (level 50) with that field per delivery it gives back to the queue (the in-process
 * tries again within one delivery are warnings without it).
 */
function failedDeliveries(log: string, messageId: string): number[] {
  return log
    .split('\n')
    .filter((line) => line.includes(messageId))
    .map((line) => JSON.parse(line) as { level?: number; previousDeliveries?: number })
    .filter((entry) => entry.level === 50 && typeof entry.previousDeliveries === 'number')
    .map((entry) => entry.previousDeliveries!);
}
