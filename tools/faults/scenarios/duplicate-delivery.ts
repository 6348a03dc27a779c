import { AdmissionBundleSubmittedV1, createEnvelope } from '@bedrequest/contracts';
import { waitFor } from '@bedrequest/testing';
import { CLINIC, type FaultFixture } from '../support/fault-fixture';
import { reportFigures, seconds } from '../support/figures';
import { admissionSubmission, bundleSource } from '../support/load';

/**
 * 1,000 broker messages each delivered twice (a redelivery after a lost ack): exactly 1,000 stored
 * versions and 1,000 clinic notifications (docs/architecture.md, "Message backbone": consumers
 * deduplicate by message id).
 *
 * A consumer that committed but whose ack was lost gets the same message (same message id) again.
 * The test publishes each admission.bundle.submitted.v1 envelope twice, back to back, with the same
 * id, so that both copies are often in intake's hands at once (prefetch 32). Each bundle names one
 * clinic: one version and one Task, so one request.dispatched and one clinic notification.
 */
const MESSAGES = 1_000;

export async function duplicateDelivery(faults: FaultFixture): Promise<void> {
  const bundles = bundleSource(faults.referrer, [CLINIC.ik]);
  const submitter = { partyId: faults.referrer.partyId, ikNumbers: [faults.referrer.ik], fhirBase: faults.referrer.fhirBase };
  const envelope = (body: string) => createEnvelope(AdmissionBundleSubmittedV1, admissionSubmission(submitter, body), { correlationId: 'duplicate-delivery' });
  const messages = Array.from({ length: MESSAGES }, () => {
    const bundle = bundles.next();
    return { identifier: bundle.identifier, envelope: envelope(bundle.body) };
  });
  const identifiers = messages.map((message) => message.identifier);
  const counts = { published: 0, requests: 0, versions: 0, inbox: 0, notifications: 0, notifiedTwice: 0 };
  let processingMs = 0;
  try {
    const broker = await faults.broker();
    const started = Date.now();
    for (let offset = 0; offset < messages.length; offset += 50) {
      await Promise.all(
        messages
          .slice(offset, offset + 50)
          .flatMap(({ envelope: copy }) => [
            broker.publishEnvelope(AdmissionBundleSubmittedV1.routingKey, copy),
            broker.publishEnvelope(AdmissionBundleSubmittedV1.routingKey, copy),
          ]),
      );
      counts.published += Math.min(50, messages.length - offset) * 2;
    }

    const count = async () => {
      const intake = faults.schema('intake');
      const routing = faults.schema('routing');
      const query = async (sql: string, values: unknown[]) => (await faults.pool.query<{ n: number }>(sql, values)).rows[0]!.n;
      counts.requests = await query(`SELECT count(*)::int AS n FROM "${intake}".admission_request WHERE identifier = ANY($1)`, [identifiers]);
      counts.versions = await query(
        `SELECT count(*)::int AS n FROM "${intake}".request_version v JOIN "${intake}".admission_request r ON r.id = v.request_id WHERE r.identifier = ANY($1)`,
        [identifiers],
      );
      counts.inbox = await query(`SELECT count(*)::int AS n FROM "${intake}".inbox_message WHERE message_id = ANY($1::uuid[])`, [
        messages.map((message) => message.envelope.id),
      ]);
      counts.notifications = await query(`SELECT count(*)::int AS n FROM "${routing}".clinic_notification WHERE request_identifier = ANY($1)`, [identifiers]);
      counts.notifiedTwice = await query(
        `SELECT count(*)::int AS n FROM (SELECT request_identifier FROM "${routing}".clinic_notification WHERE request_identifier = ANY($1) GROUP BY request_identifier HAVING count(*) > 1) twice`,
        [identifiers],
      );
      return counts;
    };
    await waitFor(async () => (await count()).versions >= MESSAGES && counts.notifications >= MESSAGES, {
      timeoutMs: 180_000,
      intervalMs: 500,
      what: '1,000 versions and notifications',
    });
    processingMs = Date.now() - started;
    // Every second copy was published before this marker, and intake's queue is first in, first
    // out, handled one batch at a time: once the marker has gone all the way (stored by intake, its
    // clinic notified by routing), every copy before it was handled. One given back to the queue
    // (a failed try) would still be there: so also until intake's and routing's queues hold
    // nothing unsettled and intake's outbox is empty. A late duplicate would have shown by then.
    const marker = bundles.next();
    await broker.publishEnvelope(AdmissionBundleSubmittedV1.routingKey, envelope(marker.body));
    await waitFor(
      async () =>
        (
          await faults.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM "${faults.schema('routing')}".clinic_notification WHERE request_identifier = $1`,
            [marker.identifier],
          )
        ).rows[0]!.n > 0,
      { timeoutMs: 120_000, intervalMs: 200, what: 'the marker bundle’s clinic notification' },
    );
    await waitFor(
      async () =>
        (await faults.unsettled('intake')) === 0 &&
        (await faults.unsettled('routing')) === 0 &&
        (await faults.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${faults.schema('intake')}".outbox_message`)).rows[0]!.n === 0,
      { timeoutMs: 120_000, intervalMs: 200, what: 'intake’s and routing’s queues settled and intake’s outbox empty' },
    );
    await count();

    expect(counts).toEqual({ published: 2 * MESSAGES, requests: MESSAGES, versions: MESSAGES, inbox: MESSAGES, notifications: MESSAGES, notifiedTwice: 0 });
  } finally {
    reportFigures(
      'duplicate delivery',
      `${counts.published} messages published (${MESSAGES} ids, each twice): ${counts.requests} requests, ${counts.versions} stored versions, ${counts.inbox} inbox entries, ` +
        `${counts.notifications} clinic notifications (${counts.notifiedTwice} requests notified twice), all in ${seconds(processingMs)}`,
    );
  }
}
