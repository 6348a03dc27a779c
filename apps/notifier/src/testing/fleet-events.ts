// What a notifier fleet (notifier-fleet.ts) sends its processes: the referring parties'
// subscriptions, and AdmissionResponses published straight to the notifier's queue, two per request.
import { randomUUID } from 'node:crypto';
import { AdmissionResponseV1, createEnvelope } from '@bedrequest/contracts';
import { fhirTask } from '@bedrequest/fhir-model/testing';
import type { Broker } from '@bedrequest/messaging';
import type { WebhookReceiver } from '@bedrequest/testing';
import type { TestAuthority } from '@bedrequest/tokens/testing';

/** One AdmissionResponse a run publishes: its event id, its request and the party it is for. */
export interface PublishedEvent {
  eventId: string;
  request: string;
  party: string;
}

export const partyName = (index: number) => `scale-referrer-${index}`;

/**
 * `events` AdmissionResponses for `events / 2` requests (rounded up): the first of each request
 * comes in the first half, the second in the second, and the requests are spread over `parties`.
 */
export function plannedEvents(events: number, parties: number): { requests: string[]; published: PublishedEvent[] } {
  const requests = Array.from({ length: Math.ceil(events / 2) }, () => `https://scale-hospital.example/fhir/ServiceRequest/${randomUUID()}`);
  const published = Array.from({ length: events }, (_, n) => {
    const request = n % requests.length;
    return { eventId: randomUUID(), request: requests[request]!, party: partyName(request % parties) };
  });
  return { requests, published };
}

/** A subscription of each of `parties` parties, through the notifier at `url`, its callback URL on one of `receivers` in turn. */
export async function subscribeParties(url: string, parties: number, receivers: readonly WebhookReceiver[], authority: TestAuthority): Promise<void> {
  for (let party = 0; party < parties; party++) {
    const receiver = receivers[party % receivers.length]!;
    const response = await fetch(`${url}/internal/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await authority.referrer(partyName(party))}` },
      body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl: `${receiver.url}/${partyName(party)}` }),
    });
    if (response.status !== 201) throw new Error(`subscribing ${partyName(party)} answered ${response.status}`);
  }
}

export async function publishEvent(client: Broker, event: PublishedEvent, occurredAt: Date): Promise<void> {
  const envelope = createEnvelope(
    AdmissionResponseV1,
    {
      eventId: event.eventId,
      referrerPartyId: event.party,
      requestIdentifier: event.request,
      task: fhirTask({ requestIdentifier: event.request, businessStatus: 'accepted' }),
      source: 'clinic',
    },
    { correlationId: 'scale-out', occurredAt },
  );
  await client.publishEnvelope(AdmissionResponseV1.routingKey, envelope);
}
