import { Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per service (not prom-client's global one), so tests can build several side by side. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
