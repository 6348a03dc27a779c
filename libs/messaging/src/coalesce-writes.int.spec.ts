import { connect, type ChannelModel } from 'amqplib';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { coalesceWrites } from './coalesce-writes';

const env = testEnvironment();

interface CountedSocket {
  _write: (...args: unknown[]) => unknown;
  _writev?: (...args: unknown[]) => unknown;
}

/** Counts the socket writes (one system call each) that `work` causes. */
async function socketWrites(model: ChannelModel, work: () => Promise<void>): Promise<number> {
  const socket = (model as unknown as { connection: { stream: CountedSocket } }).connection.stream;
  let writes = 0;
  const [write, writev] = [socket._write, socket._writev];
  socket._write = function (...args: unknown[]) {
    writes++;
    return write.apply(this, args);
  };
  if (writev) {
    socket._writev = function (...args: unknown[]) {
      writes++;
      return writev.apply(this, args);
    };
  }
  try {
    await work();
  } finally {
    socket._write = write;
    if (writev) socket._writev = writev;
  }
  return writes;
}

describe('coalesceWrites against the real RabbitMQ', () => {
  const queue = uniqueName('coalesce');

  async function publishFifty(coalesce: boolean): Promise<number> {
    const model = await connect(env.amqpUrl, { noDelay: true });
    try {
      if (coalesce) expect(coalesceWrites(model)).toBe(true);
      const channel = await model.createConfirmChannel();
      await channel.assertQueue(queue, { exclusive: true });
      const writes = await socketWrites(model, async () => {
        for (let n = 0; n < 50; n++) channel.sendToQueue(queue, Buffer.from(`message ${n}`));
        await channel.waitForConfirms();
      });
      await channel.close();
      return writes;
    } finally {
      await model.close();
    }
  }

  it('writes fifty publishes of one turn with a handful of socket writes instead of fifty', async () => {
    const oneByOne = await publishFifty(false);
    const coalesced = await publishFifty(true);
    expect(oneByOne).toBeGreaterThanOrEqual(50);
    expect(coalesced).toBeLessThanOrEqual(3);
  });
});
