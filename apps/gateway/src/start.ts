import type { Server } from 'node:http';
import helmet from 'helmet';
import { ClinicDirectory, loadClinicsFrom } from '@bedrequest/clinic-directory';
import { connectServiceBroker, type Broker } from '@bedrequest/messaging';
import { createServiceHttpApp, serveHttp, serveProbes, startService, type Started } from '@bedrequest/observability';
import { closeRedis, openRedis } from '@bedrequest/persistence';
import { ANY_ROLE, requireScope, requireToken, revocationListFor, serviceTokensFor, tokenVerifierFor, type Permission, type Role } from '@bedrequest/tokens';
import { allowedMethods } from './allowed-methods';
import { ClinicCapacityClient } from './capacity/capacity.client';
import { capacityRouter } from './capacity/capacity.router';
import { clinicApiRouter } from './clinic-api/clinic-api.router';
import { ClinicTaskReadsClient, clinicTasksRouter } from './clinic-api/clinic-tasks.router';
import { ClinicWorkspaceClient, clinicWorkspaceRouter } from './clinic-api/clinic-workspace.router';
import { ReferrerContacts, referrerContactRouter } from './clinic-api/referrer-contact.router';
import { AnswerStatisticsClient, clinicAnswerStatisticsRouter, referrerAnswerStatisticsRouter } from './clinics/answer-statistics.router';
import { freeBedsRouter } from './clinics/free-beds.router';
import { klinikenRouter } from './clinics/kliniken.router';
import type { GatewayConfig } from './config';
import { auditEventRouter } from './fhir/audit-event.router';
import { bundleRoute } from './fhir/bundle.router';
import { IntakeClient } from './fhir/intake.client';
import { IntakeRequestsClient, intakeRequestsRoute } from './fhir/requests.router';
import { fhirReadScopes } from './fhir/fhir-read-scopes';
import { taskRouter } from './fhir/task.router';
import { metadataRouter } from './metadata/metadata.router';
import { openApiRoute } from './openapi/openapi-route';
import { PartyClient } from './party/party.client';
import { partyRouter } from './party/party.router';
import { PayerRecordClient, publicRecordRouter, referrerRecordRouter } from './referrer-api/payer-record.router';
import { ReferrerWorkspaceClient, referrerWorkspaceRouter } from './referrer-api/referrer-workspace.router';
import { errorHandler, unknownPath } from './http-errors';
import { addressLimit, type AddressBucket } from './address-limits';
import { invalidTokenLimit } from './invalid-token-limit';
import { partyLimits } from './rate-limit';
import { redirectToWeb } from './web-redirect';
import { markSandbox } from './sandbox-marker';
import { SERVICE_VERSION, serviceIndex } from './service-index';
import { NotifierClient } from './subscriptions/notifier.client';
import { subscriptionsRouter } from './subscriptions/subscriptions.router';
import { authTokenClient, tokenProxyRouter } from './token/token-proxy.router';

export type RunningGateway = Started<{
  readonly server: Server;
  readonly broker: Broker;
  /** The public address (PORT=0 picks a free port): the API only. */
  readonly url: string;
  /** The internal address (INTERNAL_PORT): health probes and metrics. */
  readonly internalUrl: string;
}>;

export function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  return startService('gateway', { logLevel: config.LOG_LEVEL, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async (context) => {
    const { logger, registry, lifecycle } = context;
    const broker = await connectServiceBroker(config, { logger, metrics: registry });
    lifecycle.onStop('broker', (remainingMs) => broker.stop(remainingMs));

    // Read with the gateway's service tokens: routing's clinic registry and auth's revoked tokens.
    const serviceTokens = serviceTokensFor(config, 'gateway');
    lifecycle.onStop('service tokens', () => serviceTokens.close());
    // Every party's token passes the gateway, so its verifier alone refuses those of disabled people
    // and parties, from auth's list read every second (docs/parties.md, "Disabling").
    const revocations = revocationListFor(config, serviceTokens, { logger, registry });
    // Parties' tokens only: a service token never passes the public API.
    const verifier = tokenVerifierFor(config, { services: false, revocations });
    // The limits (docs/api.md, "Limits"): per party behind a token, per client address without one.
    const redis = openRedis(config, logger);
    lifecycle.onStop('redis', () => closeRedis(redis));
    const perParty = partyLimits({
      redis,
      requestsPerSecond: config.RATE_LIMIT_PER_SECOND,
      concurrentRequests: config.RATE_LIMIT_CONCURRENT_PER_PARTY,
      bytesInFlight: config.RATE_LIMIT_BYTES_IN_FLIGHT_PER_PARTY,
      bytesPerSecond: config.RATE_LIMIT_BYTES_PER_SECOND,
      refusalHoldMs: config.RATE_LIMIT_REFUSAL_HOLD_MS,
    });
    // Per client address, a budget for each group of routes without a token, so that reading the
    // documents never starves the token endpoints (docs/operations.md, "Limits per client address").
    const perAddress = (bucket: AddressBucket) =>
      addressLimit({
        redis,
        bucket,
        perSecond: config.RATE_LIMIT_PER_ADDRESS_PER_SECOND,
        exempt: config.RATE_LIMIT_EXEMPT_ADDRESSES,
        refusalHoldMs: config.RATE_LIMIT_REFUSAL_HOLD_MS,
      });
    const documents = perAddress('documents');
    // A token is verified only while its address has not sent too many invalid ones; a valid token
    // is limited per party alone (docs/operations.md, "Limits per client address").
    const unlessInvalidTokens = invalidTokenLimit({
      redis,
      verifier,
      perSecond: config.RATE_LIMIT_PER_ADDRESS_PER_SECOND,
      exempt: config.RATE_LIMIT_EXEMPT_ADDRESSES,
      refusalHoldMs: config.RATE_LIMIT_REFUSAL_HOLD_MS,
    });
    // A system client's token passes a route only with the route's scope; a person's keeps every
    // right of its role (docs/parties.md, "System clients and scopes").
    const guarded =
      (roles: readonly Role[]) =>
      (...permissions: Permission[]) => [unlessInvalidTokens(requireToken({ verifier, roles })), perParty, ...permissions.map(requireScope)];
    const referrers = guarded(['referrer']);
    const clinics = guarded(['clinic']);
    const anyone = guarded(ANY_ROLE);

    // The registry in memory (routing owns it and broadcasts its changes): every bundle's performers
    // are checked against it without asking routing per request. Read with the gateway's service token.
    const clinicDirectory = new ClinicDirectory({
      load: loadClinicsFrom(config.ROUTING_URL, serviceTokens),
      logger,
      startTimeoutMs: config.STARTUP_TIMEOUT_MS,
    });
    await clinicDirectory.start(broker);
    lifecycle.onStop('clinic directory', async () => clinicDirectory.stop());
    // After the registry's first load, which waited for auth (the service token): the list's first read is quick.
    await revocations.start();
    lifecycle.onStop('revocation list', () => revocations.stop());

    // The services behind the API, asked with the caller's forwarded token.
    const intake = new IntakeClient(config.INTAKE_URL);
    const notifier = new NotifierClient(config.NOTIFIER_URL);
    const capacity = new ClinicCapacityClient(config.ROUTING_URL);
    const auth = authTokenClient(config.AUTH_URL);
    const clinicTaskReads = new ClinicTaskReadsClient(config.INTAKE_URL);
    // A referrer's requests by identifier: read back and erased (fhir/requests.router.ts).
    const requests = new IntakeRequestsClient(config.INTAKE_URL);
    const party = new PartyClient(config.AUTH_URL);
    const clinicWorkspace = new ClinicWorkspaceClient(config.INTAKE_URL);
    lifecycle.onStop('clinic workspace client', () => clinicWorkspace.close());
    const referrerWorkspace = new ReferrerWorkspaceClient(config.INTAKE_URL);
    lifecycle.onStop('referrer workspace client', () => referrerWorkspace.close());
    const payerRecords = new PayerRecordClient(config.INTAKE_URL);
    lifecycle.onStop('payer record client', () => payerRecords.close());
    const answerStatistics = new AnswerStatisticsClient(config.INTAKE_URL);
    lifecycle.onStop('answer statistics client', () => answerStatistics.close());
    const referrerContacts = new ReferrerContacts({ intakeUrl: config.INTAKE_URL, authUrl: config.AUTH_URL }, serviceTokens);
    lifecycle.onStop('referrer contacts', () => referrerContacts.close());
    lifecycle.onStop('service clients', () =>
      Promise.all([intake.close(), notifier.close(), capacity.close(), auth.close(), clinicTaskReads.close(), requests.close(), party.close()]),
    );

    const app = createServiceHttpApp({ logger, registry, trustedProxies: config.TRUSTED_PROXIES });
    if (config.SANDBOX) app.use(markSandbox());
    app.use(helmet());
    app.use(allowedMethods(app));
    app.get('/', documents, serviceIndex);
    app.get('/api/openapi.json', documents, openApiRoute({ fallbackHost: `127.0.0.1:${config.PORT}` }));
    // The CapabilityStatement and the conformance resources: no token (FHIR clients read them first).
    app.use(
      '/api/v2/fhir',
      metadataRouter({ profileBase: config.PROFILE_BASE, version: SERVICE_VERSION, limit: documents, publicApiUrl: config.API_PUBLIC_URL }),
    );
    app.use('/api/v1/token', perAddress('token'), tokenProxyRouter(auth, logger));
    // Before the clinics' list, whose guard lets every role in: the free beds are the referrers'.
    app.use('/api/v1/kliniken/free-beds', ...referrers('api:kliniken'), freeBedsRouter({ capacity, logger }));
    // Every clinic's answer times are the referrers': a clinic's token gets 403 (its own are under /api/v1/clinic).
    app.use('/api/v1/kliniken/answer-statistics', ...referrers('api:kliniken'), referrerAnswerStatisticsRouter({ statistics: answerStatistics, logger }));
    app.use('/api/v1/kliniken', ...anyone('api:kliniken'), klinikenRouter(clinicDirectory, logger));
    app.use('/api/v1/party', ...anyone('api:party'), partyRouter({ party, logger }));
    app.use('/api/v1/subscriptions', ...referrers('api:subscriptions'), subscriptionsRouter({ notifier, logger }));
    // The hospital's own data beside its requests, never sent to a clinic: case numbers and drafts.
    app.use('/api/v1/referrer', ...referrers('api:referrer'), referrerWorkspaceRouter({ workspace: referrerWorkspace, logger }));
    // The record for the payer: the hospital's download, and its verification by anyone without a token.
    app.use('/api/v1/referrer', ...referrers('api:referrer'), referrerRecordRouter({ records: payerRecords, logger }));
    app.use('/api/v1/records', documents, publicRecordRouter({ records: payerRecords, logger }));
    app.use('/api/v1/clinic/capacity', ...clinics('api:clinic'), capacityRouter({ capacity, logger }));
    app.use(
      '/api/v1/clinic',
      ...clinics('api:clinic'),
      clinicTasksRouter({ reads: clinicTaskReads, logger }),
      clinicWorkspaceRouter({ workspace: clinicWorkspace, logger }),
      clinicAnswerStatisticsRouter({ statistics: answerStatistics }),
      referrerContactRouter({ contacts: referrerContacts, logger }),
      clinicApiRouter({ intake, broker, answerTimeoutMs: config.INTAKE_VERDICT_TIMEOUT_MS, logger }),
    );
    app.post(
      '/api/v2/fhir/Bundle',
      ...referrers('Bundle.c'),
      ...bundleRoute({
        broker,
        clinics: clinicDirectory,
        profileBase: config.PROFILE_BASE,
        verdictTimeoutMs: config.INTAKE_VERDICT_TIMEOUT_MS,
      }),
    );
    app.delete('/api/v2/fhir/ServiceRequest', ...referrers('ServiceRequest.d'), intakeRequestsRoute(requests, 'DELETE'));
    // A referrer reads back the latest version of a request it sent (docs/api.md, "Reading a request back").
    app.get('/api/v2/fhir/ServiceRequest', ...referrers('ServiceRequest.s'), intakeRequestsRoute(requests, 'GET'));
    app.use('/api/v2/fhir', ...anyone(), fhirReadScopes(), taskRouter(intake), auditEventRouter(intake));
    // The clinic inbox is the web app's (apps/web); bookmarks of its old address here keep working.
    app.get(['/inbox', '/inbox/*path'], redirectToWeb(config.WEB_PUBLIC_URL));
    app.use(unknownPath);
    app.use(errorHandler(logger));

    const internal = await serveProbes(context, {
      readiness: { broker: () => broker.isReady() },
      host: config.HOST,
      port: config.INTERNAL_PORT,
      after: [unknownPath, errorHandler(logger)],
    });
    const { server, url } = await serveHttp(context, app, { host: config.HOST, port: config.PORT });
    return { server, broker, url, internalUrl: internal.url };
  });
}
