import { randomUUID } from 'node:crypto';
import { AdmissionResponseV1 } from '@bedrequest/contracts';
// The bench is a test harness, not a service: the fixture Task is what it should publish.
import { fhirTask } from '@bedrequest/fhir-model/testing';
import type { Broker } from '@bedrequest/messaging';
import type { WebhookReceiver } from '@bedrequest/testing';
import type { Stack } from '@bedrequest/stack';
import { summarize } from './load';

/** Publishes `count` AdmissionResponse events for the referrer and times until all were delivered. */
export async function deliver(options: {
  broker: Broker;
  receiver: WebhookReceiver;
  referrerPartyId: string;
  count: number;
  requests: number;
}): Promise<number> {
  options.receiver.reset();
  const started = performance.now();
  const publishes: Promise<unknown>[] = [];
  for (let n = 0; n < options.count; n++) {
    const requestIdentifier = `https://bench-hospital.example/fhir/ServiceRequest/webhook-${n % options.requests}`;
    publishes.push(
      options.broker.publish(
        AdmissionResponseV1,
        {
          eventId: randomUUID(),
          referrerPartyId: options.referrerPartyId,
          requestIdentifier,
          task: fhirTask({ requestIdentifier, businessStatus: 'declined' }),
          source: 'clinic',
        },
        { correlationId: 'bench-webhooks' },
      ),
    );
    if (publishes.length >= 256) await Promise.all(publishes.splice(0));
  }
  await Promise.all(publishes);
  const deadline = performance.now() + 300_000;
  const delivered = () => new Set(options.receiver.received.map((webhook) => webhook.id)).size;
  while (delivered() < options.count && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (delivered() < options.count) throw new Error(`only ${delivered()} of ${options.count} webhooks arrived`);
  return options.count / ((performance.now() - started) / 1000);
}

/**
 * The subscription's body form (docs/webhooks.md, "Subscription options"): a second POST for its
 * event type changes the options it names and keeps the rest.
 */
async function setPayload(gatewayUrl: string, token: string, callbackUrl: string, payload: 'full' | 'id-only'): Promise<void> {
  const answer = await fetch(`${gatewayUrl}/api/v1/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl, payload }),
  });
  if (answer.status !== 200) throw new Error(`setting payload ${payload} answered ${answer.status}`);
}

/**
 * Figure 3: webhook deliveries per second to a local receiver with one notifier process, then (one
 * process, same stack) with the subscription's payload `id-only`, then two processes (`full`).
 */
export async function webhookFigure(options: {
  stack: Stack;
  broker: Broker;
  receiver: WebhookReceiver;
  referrerPartyId: string;
  token: string;
  count: number;
  requests: number;
  runs: number;
}) {
  const one: number[] = [];
  const idOnly: number[] = [];
  const two: number[] = [];
  for (let run = 0; run < options.runs; run++) one.push(await deliver(options));
  await setPayload(options.stack.gatewayUrl, options.token, options.receiver.url, 'id-only');
  try {
    for (let run = 0; run < options.runs; run++) idOnly.push(await deliver(options));
  } finally {
    await setPayload(options.stack.gatewayUrl, options.token, options.receiver.url, 'full');
  }
  await options.stack.start('notifier-2', 'notifier');
  try {
    for (let run = 0; run < options.runs; run++) two.push(await deliver(options));
  } finally {
    await options.stack.stopInstance('notifier-2');
  }
  return {
    eventsPerRun: options.count,
    distinctRequests: options.requests,
    oneNotifierPerSecond: summarize(one),
    oneNotifierIdOnlyPerSecond: summarize(idOnly),
    twoNotifiersPerSecond: summarize(two),
    target: 3000,
  };
}
