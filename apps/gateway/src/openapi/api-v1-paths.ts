import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { ClinicList } from '@bedrequest/contracts';
import { registerAcceptanceWithdrawalPath } from './acceptance-withdrawal-path';
import { registerClinicApiPaths } from './clinic-api-paths';
import { registerPartyPaths } from './party-paths';
import { guarded, json, merged, refusals, type Secured } from './responses';
import { registerSubscriptionPaths } from './subscription-paths';
import { registerTokenPaths } from './token-paths';

/** `/api/v1`: the token endpoints (auth's, proxied), the clinics, subscriptions, the clinic API, and the caller's party. */
export function registerApiV1Paths(registry: OpenAPIRegistry, secured: Secured): void {
  registerTokenPaths(registry);
  registry.registerPath({
    method: 'get',
    path: '/api/v1/kliniken',
    summary: 'The participating clinics and their departments (either role)',
    security: secured,
    responses: {
      200: { description: 'Every participating clinic', content: json(ClinicList) },
      ...refusals('v1', merged(guarded('any'), { 503: 'the clinic registry is unavailable' })),
    },
  });
  registerSubscriptionPaths(registry, secured);
  registerClinicApiPaths(registry, secured);
  registerAcceptanceWithdrawalPath(registry, secured);
  registerPartyPaths(registry, secured);
}
