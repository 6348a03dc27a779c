// The whole flow of one request with patient data through the gateway, for the tests that look for
// that data afterwards (tools/e2e/data-at-rest.int.spec.ts, erasure.int.spec.ts): a webhook
// subscription, the request with a free-text note, the clinic's answer with a note, a document,
// and the selection with the patient's complete data (the fixtures' Erika Musterfrau).
import { randomUUID } from 'node:crypto';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE } from '@bedrequest/fhir-model/testing';
import { waitFor, type WebhookReceiver } from '@bedrequest/testing';
import type { E2eStack } from './e2e-stack';

export interface PatientFlow {
  identifier: string;
  taskId: string;
  subscription: { id: string; secret: string };
  /** The clinic's note on its answer, and the text of the document: unique to this flow. */
  note: string;
  letter: string;
  /**
   * What identifies or describes the patient in the flow's bundles, and the webhook secret: none of
   * it may be found in a dump of the database.
   */
  secrets: string[];
}

type TaskSearch = { entry?: { resource: { id: string; status: string } }[] };

/**
 * Runs the flow as `referrer` to `clinicIk` (answered as `clinic`), the referrer's webhooks going to
 * `receiver`, and waits until the selection is applied. Whether a webhook is accepted is the
 * receiver's business.
 */
export async function runPatientFlow(
  stack: E2eStack,
  parties: { referrer: string; clinic: string; clinicIk: string; receiver: WebhookReceiver },
): Promise<PatientFlow> {
  const { referrer, clinic, clinicIk, receiver } = parties;
  const ok = (what: string, status: number, expected: number) => {
    if (status !== expected) throw new Error(`${what} answered ${status}, not ${expected}`);
  };
  const subscription = await stack.api<{ id: string; secret: string }>('POST', '/api/v1/subscriptions', {
    token: referrer,
    body: { eventType: 'AdmissionResponse', callbackUrl: receiver.url },
  });
  ok('the subscription', subscription.status, 201);
  receiver.secret = subscription.body.secret;

  const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const tasks = (search: (body: TaskSearch) => boolean, what: string) =>
    waitFor(
      async () => {
        const answer = await stack.api<TaskSearch>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer });
        return search(answer.body) && answer.body.entry;
      },
      { what },
    );
  const bundle = admissionRequestBundle({
    requestIdentifier: identifier,
    performerIks: [clinicIk],
    notes: ['Z. n. Hüft-TEP rechts, Mobilisation an Unterarmgehstützen'],
  });
  ok('the request', (await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle, contentType: 'application/fhir+json' })).status, 202);
  const [task] = await tasks((body) => (body.entry?.length ?? 0) > 0, 'the Task');
  const taskId = task!.resource.id;

  const note = `Aufnahme am Montag möglich; Patientin bitte mit aktuellem Röntgenbild und Medikationsplan (${randomUUID()})`;
  ok(
    'the answer',
    (await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: clinic, body: { businessStatus: 'accepted', note } })).status,
    200,
  );
  const letter = `Entlassbrief: Zustand nach Hüft-TEP, Wundheilung regelrecht (${randomUUID()})`;
  ok(
    'the document',
    (
      await stack.api('POST', '/api/v2/fhir/Bundle', {
        token: referrer,
        body: documentBundle({ requestIdentifier: identifier, documents: [{ contentType: 'text/plain', text: letter }] }),
      })
    ).status,
    202,
  );
  const selection = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [clinicIk], orderDetail: 'selected-provider', patient: 'complete' });
  if (!JSON.stringify(selection).includes('Musterfrau')) throw new Error('the selection fixture no longer carries the patient’s name');
  ok('the selection', (await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: selection, contentType: 'application/fhir+json' })).status, 202);
  await tasks((body) => body.entry?.[0]?.resource.status === 'in-progress', 'the selection');

  const secrets = [
    subscription.body.secret,
    subscription.body.secret.slice('whsec_'.length),
    note,
    'Röntgenbild',
    letter,
    'Wundheilung regelrecht',
    'Hüft-TEP',
    'Z. n. Hüft-TEP rechts',
    'Musterfrau',
    'Erika',
    '1956-01-01',
    'Invalidenstraße 117',
    '+49 30 1234567',
    'Schenkelhalsfraktur',
    'Benigne essentielle Hypertonie',
  ];
  return { identifier, taskId, subscription: subscription.body, note, letter, secrets };
}
