import net, { type AddressInfo, type Server, type Socket } from 'node:net';

type Target = { host: string; port: number };

/**
 * A TCP proxy in front of a real service, so a test can make the service "go away" for the client
 * (cut every connection and refuse new ones) and come back, without stopping the shared service.
 * In front of several instances of a service, it takes turns: each new connection goes to the next
 * one (a round-robin load balancer, as a deployment puts before its replicas).
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly targets: readonly Target[];
  private accepting = true;
  private connections = 0;

  constructor(target: Target | readonly Target[]) {
    this.targets = Array.isArray(target) ? target : [target as Target];
  }

  async start(): Promise<number> {
    this.server = net.createServer((client) => {
      if (!this.accepting) return client.destroy();
      const upstream = net.connect(this.targets[this.connections++ % this.targets.length]!);
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
