// Docker HEALTHCHECK of a service container: its own GET /health/ready on the port it listens on.
const portVariable = { gateway: 'PORT', auth: 'AUTH_PORT', intake: 'INTAKE_PORT', routing: 'ROUTING_PORT', notifier: 'NOTIFIER_PORT' }[process.env.SERVICE];
const port = process.env[portVariable];
fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
