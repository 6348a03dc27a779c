import { randomUUID } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import { deadLetterQueueName } from '@bedrequest/contracts';
import { deleteBrokerTopology, testEnvironment, uniqueName } from '@bedrequest/testing';
import { DeadLetterQueues, type DeadLetter } from './dead-letters';
import { testTopology } from './testing/fixtures';
import { assertTopology } from './topology';

const env = testEnvironment();

/** Passes over a real dead-letter queue: what each takes, moves, keeps, and what survives a pass that fails. */
describe('DeadLetterQueues against the real RabbitMQ', () => {
  let topology: ReturnType<typeof testTopology>;
  let queue: string;
  let inspector: ChannelModel;
  let deadLetters: DeadLetterQueues;

  beforeEach(async () => {
    topology = testTopology(uniqueName('dead_letters'));
    queue = topology.queues.work.name;
    inspector = await connect(env.amqpUrl);
    await assertTopology(await inspector.createChannel(), topology, 3);
    deadLetters = await DeadLetterQueues.connect(env.amqpUrl);
  });

  afterEach(async () => {
    await deadLetters.close();
    await deleteBrokerTopology(env.amqpUrl, topology).catch(() => undefined);
    await inspector.close();
  });

  /** `count` messages dead-lettered as a consumer that gives up does (rejected, without requeue); their ids. */
  const deadLetterSome = async (count: number, properties: { replyTo?: string } = {}) => {
    const channel = await inspector.createConfirmChannel();
    const ids = Array.from({ length: count }, () => randomUUID());
    for (const [n, id] of ids.entries()) channel.publish('', queue, Buffer.from(JSON.stringify({ id, n })), { persistent: true, messageId: id, ...properties });
    await channel.waitForConfirms();
    for (let message = await channel.get(queue, { noAck: false }); message; message = await channel.get(queue, { noAck: false })) {
      channel.nack(message, false, false);
    }
    await channel.close();
    return ids;
  };
  /** Takes every message off `name`: id, reply-to and headers. */
  const takeAll = async (name: string) => {
    const channel = await inspector.createChannel();
    const taken: { id: string; replyTo?: unknown; headers: Record<string, unknown> }[] = [];
    for (let message = await channel.get(name, { noAck: true }); message; message = await channel.get(name, { noAck: true })) {
      taken.push({ id: String(message.properties.messageId), replyTo: message.properties.replyTo, headers: message.properties.headers ?? {} });
    }
    await channel.close();
    return taken;
  };

  it('takes each message once, however many it publishes again, and keeps what it keeps with its first death', async () => {
    const ids = await deadLetterSome(100);
    const depth = async () => {
      const channel = await inspector.createChannel();
      const { messageCount } = await channel.checkQueue(deadLetterQueueName(queue));
      await channel.close();
      return messageCount;
    };
    const seen: DeadLetter[] = [];
    const pass = await deadLetters.pass(queue, async (letters) => {
      seen.push(...letters);
      return letters.map(() => 'keep' as const);
    });
    expect(pass).toEqual({ seen: 100, kept: 100, replayed: 0, discarded: 0 });
    // Each original acked, each copy there once (acks sent just before the channel closes are not lost).
    expect(await depth()).toBe(100);
    expect(seen.map((letter) => letter.messageId)).toEqual(ids);
    expect(seen[0]).toMatchObject({ queue, body: { id: ids[0], n: 0 }, firstDeath: { reason: 'rejected', queue, at: expect.any(Date) } });
    const firstDeath = seen[0]!.firstDeath;

    // A second pass finds them all again, with the same first death.
    const again: DeadLetter[] = [];
    await deadLetters.pass(queue, async (letters) => {
      again.push(...letters);
      return letters.map(() => 'keep' as const);
    });
    expect(again.map((letter) => letter.messageId).sort()).toEqual([...ids].sort());
    expect(await depth()).toBe(100);
    expect(again.find((letter) => letter.messageId === ids[0])?.firstDeath).toEqual(firstDeath);
  });

  it('replays onto the queue alone, without reply-to, discards, and keeps the rest', async () => {
    const [replayed, discarded, kept] = await deadLetterSome(3, { replyTo: 'amq.rabbitmq.reply-to.gone' });
    const pass = await deadLetters.pass(queue, async (letters) =>
      letters.map((letter) => (letter.messageId === replayed ? 'replay' : letter.messageId === discarded ? 'discard' : 'keep')),
    );
    expect(pass).toEqual({ seen: 3, kept: 1, replayed: 1, discarded: 1 });
    const back = await takeAll(queue);
    expect(back.map((message) => message.id)).toEqual([replayed]);
    expect(back[0]!.replyTo).toBeUndefined();
    expect(back[0]!.headers).toMatchObject({ 'first-death-reason': 'rejected', 'first-death-queue': queue });
    expect((await takeAll(deadLetterQueueName(queue))).map((message) => message.id)).toEqual([kept]);
  });

  it('loses nothing when the pass fails midway', async () => {
    const ids = await deadLetterSome(100);
    let chunks = 0;
    let firstChunk = 0;
    const failing = deadLetters.pass(queue, async (letters) => {
      chunks += 1;
      if (chunks === 1) firstChunk = letters.length;
      if (chunks === 2) throw new Error('the operator pressed Ctrl-C');
      return letters.map(() => 'discard' as const);
    });
    await expect(failing).rejects.toThrow('Ctrl-C');
    // The first chunk was discarded as decided; the second, taken but not settled, is back, and the rest was not touched.
    const left = await takeAll(deadLetterQueueName(queue));
    expect(left.map((message) => message.id).sort()).toEqual(ids.slice(firstChunk).sort());
  });

  it('fails, and keeps the message, when its queue is gone', async () => {
    const [id] = await deadLetterSome(1);
    const channel = await inspector.createChannel();
    await channel.deleteQueue(queue);
    await channel.close();
    await expect(deadLetters.pass(queue, async (letters) => letters.map(() => 'replay' as const))).rejects.toThrow(/could not route 1 message/);
    const seen: DeadLetter[] = [];
    const pass = await deadLetters.pass(queue, async (letters) => {
      seen.push(...letters);
      return letters.map(() => 'keep' as const);
    });
    expect([pass.seen, seen.map((letter) => letter.messageId)]).toEqual([1, [id]]);
  });
});
