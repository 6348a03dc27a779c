import { Counter, Gauge, type Registry } from 'prom-client';

export interface DeliveryMetrics {
  attempted: Counter;
  succeeded: Counter;
  failed: Counter<'reason'>;
  subscriptionsDisabled: Counter;
  withheld: Counter<'reason'>;
}

/**
 * Prometheus counters of webhook delivery, registered in the service's registry, and the gauge of
 * deliveries due now (`countDue`, read when scraped): the backlog that grows while receivers are slow
 * even though the notifier's queue stays near empty (deploy/monitoring).
 */
export function deliveryMetrics(registry: Registry, countDue?: () => Promise<number>): DeliveryMetrics {
  const registers = [registry];
  if (countDue) {
    new Gauge({
      name: 'webhook_deliveries_due',
      help: 'Webhook deliveries due now and not taken by a worker yet',
      registers,
      async collect() {
        // The database down: NaN (unknown), and /metrics still answers (readiness says why).
        this.set(await countDue().catch(() => Number.NaN));
      },
    });
  }
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
    withheld: new Counter({
      name: 'webhook_deliveries_withheld_total',
      help: 'Claimed webhook deliveries not sent because the subscriber may no longer see the Task, by reason (party-disabled)',
      labelNames: ['reason'],
      registers,
    }),
  };
}
