// Docker HEALTHCHECK of a service container: its own GET /health/ready on the port it listens on
// (the gateway's and the web app's internal port: their public ports serve the API and the pages only).
const portVariable = {
  gateway: 'INTERNAL_PORT',
  web: 'WEB_INTERNAL_PORT',
  auth: 'AUTH_PORT',
  intake: 'INTAKE_PORT',
  routing: 'ROUTING_PORT',
  notifier: 'NOTIFIER_PORT',
}[process.env.SERVICE];
const defaults = { INTERNAL_PORT: '9080', WEB_INTERNAL_PORT: '9085', AUTH_PORT: '8081', INTAKE_PORT: '8082', ROUTING_PORT: '8083', NOTIFIER_PORT: '8084' };
const port = process.env[portVariable] ?? defaults[portVariable];
fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
