import { connect } from 'amqplib';
import { AdmissionBundleSubmittedV1 } from '@bedrequest/contracts';
import { RabbitMqNode, freePort, uniqueName, waitFor } from '@bedrequest/testing';
import { provisionPlan } from './plan';
import { provisionBroker, removeBrokerPrincipals } from './rabbitmq';

/**
 * Provisioning through the broker's management HTTP API (PROVISION_RABBITMQ_API_URL), as a
 * provisioning job in a container does: a RabbitMQ node of its own with the management plugin, on
 * free ports, beside the machine's broker (which stays as it is).
 */
describe('provisioning through the RabbitMQ management API', () => {
  let node: RabbitMqNode;
  let amqpPort: number;
  let apiPort: number;

  beforeAll(async () => {
    apiPort = await freePort();
    node = await RabbitMqNode.create('mgmt', {
      config: [`management.tcp.port = ${apiPort}`, 'management.tcp.ip = 127.0.0.1'],
      plugins: ['rabbitmq_management'],
    });
    amqpPort = node.amqpPort;
    await node.start();
    await waitFor(
      async () =>
        (await fetch(`http://127.0.0.1:${apiPort}/api/overview`, { headers: { authorization: basic('guest', 'guest') } }).catch(() => undefined))?.ok === true,
      {
        timeoutMs: 60_000,
        what: 'the RabbitMQ node with the management plugin to answer',
      },
    );
  }, 90_000);

  afterAll(() => node?.remove(), 90_000);

  it('sets up the users and their topic permissions, and removes them again', async () => {
    const namespace = uniqueName('api');
    const plan = provisionPlan({ AMQP_NAMESPACE: namespace }, { generatePasswords: true });
    const admin = { amqpUrl: `amqp://guest:guest@127.0.0.1:${amqpPort}`, rabbitmqctl: 'not-used', api: `http://guest:guest@127.0.0.1:${apiPort}` };
    await provisionBroker(admin, { namespace, deliveryLimit: 5, principals: plan.broker });

    const routing = plan.broker.find((principal) => principal.service === 'routing')!;
    const connection = await connect(`amqp://${routing.user}:${encodeURIComponent(routing.password)}@127.0.0.1:${amqpPort}`, { noDelay: true });
    try {
      const channel = await connection.createConfirmChannel();
      const closed = new Promise<Error>((resolve) => channel.on('error', resolve));
      channel.publish(plan.eventsExchange, AdmissionBundleSubmittedV1.routingKey, Buffer.from('{}'));
      expect((await closed).message).toMatch(/ACCESS_REFUSED.*topic/);
    } finally {
      await connection.close().catch(() => undefined);
    }

    await removeBrokerPrincipals(admin, plan.broker);
    const users = (await (await fetch(`http://127.0.0.1:${apiPort}/api/users`, { headers: { authorization: basic('guest', 'guest') } })).json()) as {
      name: string;
    }[];
    expect(users.map((user) => user.name).filter((name) => name.startsWith(namespace))).toEqual([]);
  }, 60_000);
});

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
