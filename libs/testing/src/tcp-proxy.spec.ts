import net, { type AddressInfo } from 'node:net';
import { freePort } from './free-port';
import { TcpProxy } from './tcp-proxy';

/** A server that answers every connection with its name and closes it. */
async function namedServer(name: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.end(name));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function answerThrough(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('TcpProxy as a load balancer', () => {
  it('takes turns between the instances and skips one that refuses connections', async () => {
    const [a, b] = [await namedServer('a'), await namedServer('b')];
    const gone = { host: '127.0.0.1', port: await freePort() };
    const proxy = new TcpProxy([{ host: '127.0.0.1', port: a.port }, gone, { host: '127.0.0.1', port: b.port }]);
    const port = await proxy.start();
    try {
      const answers: string[] = [];
      for (let call = 0; call < 4; call++) answers.push(await answerThrough(port));
      // a, (gone → b), b, a: no connection fails while an instance answers.
      expect(answers).toEqual(['a', 'b', 'b', 'a']);
    } finally {
      await proxy.stop();
      await Promise.all([a.close(), b.close()]);
    }
  });
});
