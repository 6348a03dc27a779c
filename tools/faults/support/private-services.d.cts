/** What runs in a fault run's folder (private-services.cjs, services.json). */
export interface PrivateServices {
  folder: string;
  owner: { pid: number; startTicks?: string };
  postgres: { port: number; dir: string; data: string; log: string };
  redis: { port: number; dir: string };
  rabbitmq: { node: string; amqpPort: number; distPort: number; dir: string };
}

/** A command and its arguments, for execFile. */
export type Command = [file: string, args: string[]];

export const PORT_SLICE_WORKER_ID: string;
export function startPrivateServices(): Promise<PrivateServices>;
export function removePrivateServices(services: PrivateServices): void;
export function reapStale(): void;
export function servicesOfRun(): PrivateServices;
export function urlsOf(services: PrivateServices): { postgres: string; redis: string; amqp: string };
export function pgCtlCommand(services: PrivateServices, action: 'stop' | 'start' | 'restart'): Command;
export function redisServerCommand(services: PrivateServices): Command;
export function rabbitmqctlCommand(services: PrivateServices, ...args: string[]): Command;
