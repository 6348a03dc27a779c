import { context, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import { idOnlyTask } from '@bedrequest/contracts';
import { contextFrom } from '@bedrequest/messaging';
import type { ClaimedDelivery } from './claimed-delivery';
import type { DeliveryMetrics } from './delivery-metrics';
import { isSuccess } from './retry-policy';
import { signedWebhook } from './webhook-message';
import type { SendResult, WebhookSender } from './webhook-sender';

/** One attempt's answer (or none), when it was made, and its span. */
export type AttemptResult = SendResult & { attemptedAt: Date; span: SpanContext };

/**
 * One attempt at a claimed delivery: the webhook signed for this attempt's time, counted as
 * attempted, and POSTed to the callback URL.
 */
export async function attemptDelivery(delivery: ClaimedDelivery, sender: Pick<WebhookSender, 'send'>, metrics: DeliveryMetrics): Promise<AttemptResult> {
  const attemptedAt = new Date();
  // The stored event is the full one; an id-only subscription gets it reduced here, and the signature is over what is sent.
  const data = delivery.payload === 'id-only' ? idOnlyTask(delivery.data) : delivery.data;
  const request = signedWebhook(
    { id: delivery.eventId, type: delivery.eventType, occurredAt: delivery.occurredAt, sequence: delivery.sequence, data },
    delivery.previousSecret === undefined ? delivery.secret : [delivery.secret, delivery.previousSecret],
    attemptedAt,
  );
  metrics.attempted.inc();
  return { attemptedAt, ...(await sendTraced(delivery, request, sender)) };
}

/**
 * The attempt as a span (`webhook delivery`) in the trace of the message that brought the event,
 * stored with it: each attempt, retries included, is a child of that context, wherever and however
 * much later it runs. The POST carries the span on in its `traceparent` header (the undici
 * instrumentation's client span, a child of this one).
 */
async function sendTraced(
  delivery: ClaimedDelivery,
  request: { body: string; headers: Record<string, string> },
  sender: Pick<WebhookSender, 'send'>,
): Promise<SendResult & { span: SpanContext }> {
  const parent = contextFrom(delivery.traceContext);
  const span = trace.getTracer('@bedrequest/notifier').startSpan(
    'webhook delivery',
    {
      attributes: {
        'bedrequest.webhook.event_id': delivery.eventId,
        'bedrequest.webhook.subscription_id': delivery.subscriptionId,
        'bedrequest.webhook.sequence': delivery.sequence,
        'bedrequest.webhook.attempt': delivery.attemptCount + 1,
      },
    },
    parent,
  );
  const result = await context.with(trace.setSpan(parent, span), () => sender.send(delivery.callbackUrl, request));
  const { outcome } = result;
  if (outcome.kind === 'answered') span.setAttribute('http.response.status_code', outcome.statusCode);
  if (outcome.kind !== 'answered' || !isSuccess(outcome.statusCode)) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.kind === 'answered' ? `HTTP ${outcome.statusCode}` : outcome.reason });
  }
  span.end();
  return { ...result, span: span.spanContext() };
}
