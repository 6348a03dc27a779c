import { Counter, type Registry } from 'prom-client';

export interface DeliveryMetrics {
  attempted: Counter;
  succeeded: Counter;
  failed: Counter<'reason'>;
  subscriptionsDisabled: Counter;
}

/** Prometheus counters of webhook delivery, registered in the service's registry. */
export function deliveryMetrics(registry: Registry): DeliveryMetrics {
  const registers = [registry];
  return {
    attempted: new Counter({ name: 'webhook_deliveries_attempted_total', help: 'Webhook delivery attempts started', registers }),
    succeeded: new Counter({ name: 'webhook_deliveries_succeeded_total', help: 'Webhook delivery attempts answered with 2xx', registers }),
    failed: new Counter({
      name: 'webhook_deliveries_failed_total',
      help: 'Webhook delivery attempts that failed, by reason (status: a non-2xx answer; timeout; network; refused: address guard)',
      labelNames: ['reason'],
      registers,
    }),
    subscriptionsDisabled: new Counter({
      name: 'webhook_subscriptions_disabled_total',
      help: 'Subscriptions disabled by a 410 answer or by failing for WEBHOOK_DISABLE_AFTER',
      registers,
    }),
  };
}
