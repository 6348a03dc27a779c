import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import helmet from 'helmet';
import { ClinicDirectory, loadClinicsFrom } from '@bedrequest/clinic-directory';
import { connectServiceBroker, type Broker } from '@bedrequest/messaging';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import { ANY_ROLE, createAccessTokenVerifier, remoteSigningKeys, requireAccessToken } from './auth';
import { ClinicCapacityClient } from './capacity/capacity.client';
import { capacityRouter } from './capacity/capacity.router';
import { clinicApiRouter } from './clinic-api/clinic-api.router';
import { klinikenRouter } from './clinics/kliniken.router';
import { authJwksUrl, type GatewayConfig } from './config';
import { bundleRoute } from './fhir/bundle.router';
import { IntakeClient } from './fhir/intake.client';
import { taskRouter } from './fhir/task.router';
import { openApiDocument } from './openapi/openapi-document';
import { errorHandler, unknownPath } from './http-errors';
import { rateLimitPerParty } from './rate-limit';
import { subscriptionsRouter } from './subscriptions/subscriptions.router';
import { tokenProxyRouter } from './token/token-proxy.router';

export interface RunningGateway {
  readonly server: Server;
  readonly broker: Broker;
  /** The bound address (PORT=0 picks a free port). */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  const registry = createMetricsRegistry('gateway');

  const broker = await connectServiceBroker(config, { logger, metrics: registry });
  lifecycle.onStop('broker', () => broker.stop(config.SHUTDOWN_TIMEOUT_MS));

  const verifier = createAccessTokenVerifier({
    keys: remoteSigningKeys(authJwksUrl(config)),
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
  });
  const referrers = [requireAccessToken({ verifier, roles: ['referrer'] }), rateLimitPerParty(config.RATE_LIMIT_PER_SECOND)];
  const clinics = [requireAccessToken({ verifier, roles: ['clinic'] }), rateLimitPerParty(config.RATE_LIMIT_PER_SECOND)];
  const anyone = [requireAccessToken({ verifier, roles: ANY_ROLE }), rateLimitPerParty(config.RATE_LIMIT_PER_SECOND)];
  // The registry in memory (routing owns it and broadcasts its changes): every bundle's performers
  // are checked against it without asking routing per request.
  const clinicDirectory = new ClinicDirectory({ load: loadClinicsFrom(config.ROUTING_URL), logger });
  await clinicDirectory.start(broker);
  lifecycle.onStop('clinic directory', async () => clinicDirectory.stop());
  const intake = new IntakeClient(config.INTAKE_URL);
  lifecycle.onStop('intake client', () => intake.close());

  const app = createServiceHttpApp({ logger, registry, readiness: { broker: () => broker.isReady() } });
  app.use(helmet());
  app.get('/api/openapi.json', (req, res) => {
    res.json(openApiDocument({ serverUrl: `${req.protocol}://${req.get('host') ?? `127.0.0.1:${config.PORT}`}` }));
  });
  app.use('/api/v1/token', tokenProxyRouter(config.AUTH_URL, logger));
  app.use('/api/v1/kliniken', ...anyone, klinikenRouter(clinicDirectory, logger));
  app.use('/api/v1/subscriptions', ...referrers, subscriptionsRouter({ notifierUrl: config.NOTIFIER_URL, logger }));
  app.use('/api/v1/clinic/capacity', ...clinics, capacityRouter({ capacity: new ClinicCapacityClient(config.ROUTING_URL), logger }));
  app.use(
    '/api/v1/clinic',
    ...clinics,
    clinicApiRouter({ intake, broker, answerTimeoutMs: config.INTAKE_VERDICT_TIMEOUT_MS, logger }),
  );
  app.post(
    '/api/v2/fhir/Bundle',
    ...referrers,
    ...bundleRoute({
      broker,
      clinics: clinicDirectory,
      profileBase: config.PROFILE_BASE,
      verdictTimeoutMs: config.INTAKE_VERDICT_TIMEOUT_MS,
      logger,
    }),
  );
  app.use('/api/v2/fhir', ...anyone, taskRouter(intake, logger));
  app.use('/api', unknownPath);
  app.use(errorHandler(logger));

  const server = await listen(app, config.PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  logger.info({ url }, 'gateway listening');
  return { server, broker, url, stop: () => lifecycle.stop() };
}
