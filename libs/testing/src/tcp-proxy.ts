import net, { type AddressInfo, type Server, type Socket } from 'node:net';

type Target = { host: string; port: number };

/**
 * A TCP proxy in front of a real service, so a test can make the service "go away" for the client
 * (cut every connection and refuse new ones) and come back, without stopping the shared service.
 * In front of several instances of a service, it takes turns: each new connection goes to the next
 * one (a round-robin load balancer, as a deployment puts before its replicas), and past one that
 * refuses it.
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
      this.track(client);
      // What the client sends waits until an instance took the connection.
      client.pause();
      this.forward(client, this.connections++, this.targets.length);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server!.address() as AddressInfo).port;
  }

  /**
   * Connects the client to the instance at `index`; one that refuses (a killed replica) is skipped
   * for the next, as a load balancer retries a failed connect, until `tries` are used up.
   */
  private forward(client: Socket, index: number, tries: number): void {
    const upstream = net.connect(this.targets[index % this.targets.length]!);
    this.track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.resume();
    });
    upstream.once('error', () => {
      if (!connected && tries > 1 && !client.destroyed && this.accepting) this.forward(client, index + 1, tries - 1);
      else client.destroy();
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
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
