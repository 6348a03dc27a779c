// Vacuum lag: intake's outbox relay and the notifier's delivery claims on tables that VACUUM has not
// reached since a day of traffic (autovacuum off for them), against the same tables vacuumed.
import pino from 'pino';
import { Registry } from 'prom-client';
import { declareTopology } from '@bedrequest/contracts';
import { connectServiceBroker } from '@bedrequest/messaging';
import { deleteBrokerTopology } from '@bedrequest/testing';
import { ownSchemaAndNamespace } from './figure-encryption';
import { deliveryPart } from './vacuum-lag-deliveries';
import { outboxPart } from './vacuum-lag-outbox';
import { connected, type History } from './vacuum-lag-tables';

export type { History } from './vacuum-lag-tables';

/** A request's messages and webhooks at national volume: 1,000,000 requests a year is 2,740 a day, three of each per request. */
export const NATIONAL_DAY: History = { name: 'day', outboxMessages: 8_200, deliveries: 8_200 };
/** The heavier stretch: 150,000 requests' worth of fault and load runs through tables VACUUM did not reach. */
export const HEAVY: History = { name: 'heavy', outboxMessages: 150_000, deliveries: 150_000 };

/**
 * Vacuum lag, one figure: for each history (a national day; the heavier stretch the issue measured),
 * intake's outbox relay and the notifier's claims on tables VACUUM has not reached since (their
 * autovacuum off, whatever the cluster's), then on the same tables after VACUUM ANALYZE. Its own
 * schemas and broker namespace, dropped after.
 */
export async function vacuumLagFigure(options: {
  databaseUrl: string;
  amqpUrl: string;
  namespace: string;
  histories: readonly History[];
  messages: number;
  deliveries: number;
  runs: number;
}) {
  const namespace = `${options.namespace}-vacuum-lag`;
  const config = await ownSchemaAndNamespace(options, namespace);
  const metrics = new Registry();
  const broker = await connectServiceBroker(
    { AMQP_URL: config.AMQP_URL!, AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 32, AMQP_DELIVERY_LIMIT: 5 },
    { logger: pino({ level: 'warn' }), metrics },
  );
  const autovacuum = await connected(options.databaseUrl).then(async (client) => {
    const { rows } = await client.query<{ autovacuum: string }>('SHOW autovacuum');
    await client.end();
    return rows[0]?.autovacuum;
  });
  try {
    const histories: Record<string, unknown> = {};
    for (const history of options.histories) {
      histories[history.name] = {
        outbox: await outboxPart({ databaseUrl: options.databaseUrl, broker, metrics, history, messages: options.messages, runs: options.runs }),
        deliveries: await deliveryPart({ databaseUrl: options.databaseUrl, history, deliveries: options.deliveries, runs: options.runs }),
      };
    }
    return { clusterAutovacuum: autovacuum, messagesPerRun: options.messages, deliveriesPerRun: options.deliveries, runs: options.runs, histories };
  } finally {
    await broker.stop();
    await deleteBrokerTopology(options.amqpUrl, declareTopology(namespace)).catch(() => undefined);
  }
}
