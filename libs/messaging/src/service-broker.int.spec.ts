import { connect } from 'amqplib';
import { Registry } from 'prom-client';
import { declareTopology } from '@bedrequest/contracts';
import { captureLogger, deleteBrokerTopology, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import type { Broker } from './broker';
import { connectServiceBroker } from './service-broker';
import { declareBrokerTopology } from './topology';

const env = testEnvironment();

/** Whether the broker has the exchange, asked passively by the administrator. */
async function exchangeExists(name: string): Promise<boolean> {
  const connection = await connect(env.amqpUrl);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    return await channel.checkExchange(name).then(
      () => true,
      () => false,
    );
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * A service's broker connection declares no topology, not even as the administrator and outside
 * production (docs/operations.md, "Provisioning"): it waits for provisioning, saying so, and starts
 * once provisioning's step declared it.
 */
describe("a service's broker connection on a namespace nobody provisioned", () => {
  const topology = declareTopology(uniqueName('unprovisioned'));
  let broker: Broker | undefined;
  afterAll(async () => {
    await broker?.stop(2_000);
    await deleteBrokerTopology(env.amqpUrl, topology).catch(() => undefined);
  });

  it('declares nothing, says to provision, and connects once provisioning declared the topology', async () => {
    const log = captureLogger('warn');
    const starting = connectServiceBroker(
      { AMQP_URL: env.amqpUrl, AMQP_NAMESPACE: topology.eventsExchange.replace(/\.events$/, ''), AMQP_PREFETCH: 8, AMQP_DELIVERY_LIMIT: 5 },
      { logger: log.logger, metrics: new Registry() },
    );
    let started = false;
    void starting.then((connected) => {
      broker = connected;
      started = true;
    });
    await waitFor(() => log.text().includes(`the broker has no exchange ${topology.eventsExchange}: provision the topology first`), {
      what: 'the line saying to provision',
    });
    expect(started).toBe(false);
    expect(await exchangeExists(topology.eventsExchange)).toBe(false);

    await declareBrokerTopology(env.amqpUrl, topology, 5);
    await waitFor(() => started, { timeoutMs: 15_000, what: 'the connection, after provisioning' });
    expect(broker!.isReady()).toBe(true);
  }, 30_000);
});
