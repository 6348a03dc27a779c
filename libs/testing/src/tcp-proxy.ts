import net, { type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real service, so a test can make the service "go away" for the client
 * (cut every connection and refuse new ones) and come back, without stopping the shared service.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private accepting = true;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<number> {
    this.server = net.createServer((client) => {
      if (!this.accepting) return client.destroy();
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server!.address() as AddressInfo).port;
  }

  /** Drops every open connection and refuses new ones until `restore`. */
  cut(): void {
    this.accepting = false;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.accepting = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
