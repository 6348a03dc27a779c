// Docker HEALTHCHECK of a service container: its own GET /health/ready on its internal port, where
// every service serves its probes and metrics (its other port serves the API or the pages only).
const portVariable = {
  gateway: 'INTERNAL_PORT',
  web: 'WEB_INTERNAL_PORT',
  auth: 'AUTH_INTERNAL_PORT',
  intake: 'INTAKE_INTERNAL_PORT',
  routing: 'ROUTING_INTERNAL_PORT',
  notifier: 'NOTIFIER_INTERNAL_PORT',
}[process.env.SERVICE];
const defaults = {
  INTERNAL_PORT: '9080',
  WEB_INTERNAL_PORT: '9085',
  AUTH_INTERNAL_PORT: '9081',
  INTAKE_INTERNAL_PORT: '9082',
  ROUTING_INTERNAL_PORT: '9083',
  NOTIFIER_INTERNAL_PORT: '9084',
};
const port = process.env[portVariable] ?? defaults[portVariable];
fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
