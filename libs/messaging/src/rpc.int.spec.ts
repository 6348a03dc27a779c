import { connect, type ChannelModel } from 'amqplib';
import { deleteBrokerTopology, silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { Broker } from './broker';
import { TestJobDoneV1, TestJobV1, takeQueuedNumbers, testCatalog, testTopology } from './testing/fixtures';

const env = testEnvironment();

describe('request/reply against the real RabbitMQ', () => {
  const topology = testTopology(uniqueName('rpc'));
  let inspector: ChannelModel;
  const brokers: Broker[] = [];

  const startedBroker = async () => {
    const broker = new Broker({ url: env.amqpUrl, topology, catalog: testCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 3 });
    brokers.push(broker);
    await broker.start();
    return broker;
  };

  beforeAll(async () => {
    inspector = await connect(env.amqpUrl);
  });

  afterAll(async () => {
    await Promise.all(brokers.map((broker) => broker.stop(2_000)));
    await deleteBrokerTopology(env.amqpUrl, topology);
    await inspector.close();
  });

  it('answers a request with the reply of its consumer', async () => {
    const [requester, responder] = await Promise.all([startedBroker(), startedBroker()]);
    await responder.consume(topology.queues.work.name, async (messages) => {
      for (const message of messages) await message.reply(TestJobDoneV1, { doubled: (message.envelope.payload as { n: number }).n * 2 });
      return messages.map(() => 'ack' as const);
    });

    const { reply } = await requester.publishAndAwaitReply(TestJobV1, { n: 21 }, { correlationId: 'rpc' }, 5_000);

    expect(reply).toMatchObject({ type: 'test.job-done', correlationId: 'rpc', payload: { doubled: 42 } });
    await responder.stop();
  });

  it('resolves without a reply when no consumer answers in time, and the request stays queued', async () => {
    const requester = await startedBroker();

    const { reply } = await requester.publishAndAwaitReply(TestJobV1, { n: 1 }, { correlationId: 'late' }, 200);

    expect(reply).toBeUndefined();
    expect(await takeQueuedNumbers(inspector, topology.queues.work.name)).toEqual([1]);
  });
});
