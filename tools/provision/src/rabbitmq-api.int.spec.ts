import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'amqplib';
import { AdmissionBundleSubmittedV1 } from '@bedrequest/contracts';
import { freePort, uniqueName, waitFor } from '@bedrequest/testing';
import { provisionPlan } from './plan';
import { provisionBroker, removeBrokerPrincipals } from './rabbitmq';

/**
 * Provisioning through the broker's management HTTP API (PROVISION_RABBITMQ_API_URL), as a
 * provisioning job in a container does: a RabbitMQ node of its own with the management plugin, on
 * free ports, beside the machine's broker (which stays as it is).
 */
describe('provisioning through the RabbitMQ management API', () => {
  const node = `${uniqueName('mgmt').replace(/[^a-z0-9_]/g, '')}@localhost`;
  let folder: string;
  let amqpPort: number;
  let apiPort: number;

  beforeAll(async () => {
    [amqpPort, apiPort] = [await freePort(), await freePort()];
    const distPort = await freePort();
    folder = mkdtempSync(join(tmpdir(), 'rabbitmq-api-'));
    for (const sub of ['mnesia', 'log']) mkdirSync(join(folder, sub));
    writeFileSync(
      join(folder, 'rabbitmq.conf'),
      `listeners.tcp.local = 127.0.0.1:${amqpPort}\nmanagement.tcp.port = ${apiPort}\nmanagement.tcp.ip = 127.0.0.1\n`,
    );
    writeFileSync(join(folder, 'enabled_plugins'), '[rabbitmq_management].\n');
    if (process.getuid?.() === 0) {
      const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'rabbitmq'], { encoding: 'utf8' })));
      for (const path of ['', 'mnesia', 'log', 'rabbitmq.conf', 'enabled_plugins']) chownSync(join(folder, path), uid!, gid!);
    }
    execFileSync('rabbitmq-server', ['-detached'], {
      env: {
        ...process.env,
        RABBITMQ_NODENAME: node,
        RABBITMQ_DIST_PORT: String(distPort),
        RABBITMQ_MNESIA_BASE: join(folder, 'mnesia'),
        RABBITMQ_LOG_BASE: join(folder, 'log'),
        RABBITMQ_CONFIG_FILE: join(folder, 'rabbitmq.conf'),
        RABBITMQ_ENABLED_PLUGINS_FILE: join(folder, 'enabled_plugins'),
      },
    });
    await waitFor(
      async () =>
        (await fetch(`http://127.0.0.1:${apiPort}/api/overview`, { headers: { authorization: basic('guest', 'guest') } }).catch(() => undefined))?.ok === true,
      {
        timeoutMs: 60_000,
        what: 'the RabbitMQ node with the management plugin to answer',
      },
    );
  }, 90_000);

  afterAll(() => {
    spawnSync('rabbitmqctl', ['-n', node, '-q', 'stop'], { timeout: 60_000 });
    if (folder) rmSync(folder, { recursive: true, force: true });
  }, 90_000);

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
