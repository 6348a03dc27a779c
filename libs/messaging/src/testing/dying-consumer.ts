// A consumer process that commits its first batch and then dies (SIGKILL) before it can ack: run by
// broker.int.spec.ts to prove that such a batch is redelivered and changes nothing the second time.
import { Pool } from 'pg';
import pino from 'pino';
import { Broker } from '../broker';
import { recordEffectOnce, testCatalog, testTopology } from './fixtures';

async function main() {
  const setting = (name: string) => process.env[name] ?? '';
  const [AMQP_URL, TEST_NAMESPACE, DATABASE_URL, TEST_SCHEMA, TEST_DELIVERY_LIMIT] = [
    'AMQP_URL',
    'TEST_NAMESPACE',
    'DATABASE_URL',
    'TEST_SCHEMA',
    'TEST_DELIVERY_LIMIT',
  ].map(setting) as [string, string, string, string, string];
  const pool = new Pool({ connectionString: DATABASE_URL });
  const topology = testTopology(TEST_NAMESPACE);
  const broker = new Broker({
    url: AMQP_URL,
    topology,
    catalog: testCatalog,
    logger: pino({ level: 'silent' }),
    prefetch: 16,
    // A long window: the whole backlog waiting in the queue forms the first batch.
    batch: { maxBatch: 16, windowMs: 200 },
    deliveryLimit: Number(TEST_DELIVERY_LIMIT),
  });
  await broker.start();
  await broker.consume(
    topology.queues.work.name,
    recordEffectOnce(pool, TEST_SCHEMA, () => process.kill(process.pid, 'SIGKILL')),
  );
}

void main();
