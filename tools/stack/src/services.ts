import table from './services.json';

/** The six services, in start order (services.json, which `npm start` reads too). */
export const SERVICES = ['auth', 'routing', 'intake', 'notifier', 'gateway', 'web'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface ServiceEntry {
  readonly name: ServiceName;
  /** Its port's variable and default. */
  readonly port: { readonly variable: string; readonly default: number };
  /** The port of its health probes and metrics, apart from the port it serves on (docs/operations.md, "Metrics and probes"). */
  readonly internalPort?: { readonly variable: string; readonly default: number };
  /** The variable the other services find it by. */
  readonly url: string;
}

const entries = new Map(table.services.map((entry) => [entry.name, entry as ServiceEntry]));
if (SERVICES.some((name) => !entries.has(name)) || entries.size !== SERVICES.length) throw new Error('services.json and SERVICES disagree');

export function serviceEntry(name: ServiceName): ServiceEntry {
  return entries.get(name)!;
}
