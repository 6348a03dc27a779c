import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { ClinicList, FreeBedsList } from '@bedrequest/contracts';
import { FreeBedsQuery } from '../clinics/free-beds.router';
import { registerAcceptanceWithdrawalPath } from './acceptance-withdrawal-path';
import { registerAnswerStatisticsPaths } from './answer-statistics-paths';
import { registerClinicApiPaths } from './clinic-api-paths';
import { registerPartyPaths } from './party-paths';
import { registerPayerRecordPaths } from './payer-record-paths';
import { registerReferrerWorkspacePaths } from './referrer-workspace-paths';
import { guarded, json, merged, refusals, type SecuredBy } from './responses';
import { registerSubscriptionPaths } from './subscription-paths';
import { registerTokenPaths } from './token-paths';

/** `/api/v1`: the token endpoints (auth's, proxied), the clinics, subscriptions, the hospital's own data, the clinic API, and the caller's party. */
export function registerApiV1Paths(registry: OpenAPIRegistry, secured: SecuredBy): void {
  registerTokenPaths(registry);
  registry.registerPath({
    method: 'get',
    path: '/api/v1/kliniken',
    operationId: 'listClinics',
    summary: 'The participating clinics and their departments (either role)',
    security: secured('api:kliniken'),
    responses: {
      200: { description: 'Every participating clinic', content: json(ClinicList) },
      ...refusals('v1', merged(guarded('any'), { 503: 'the clinic registry is unavailable' })),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/kliniken/free-beds',
    operationId: 'listFreeBeds',
    summary: 'The free beds the clinics that show them to referrers published for one admission date (referrer tokens only)',
    security: secured('api:kliniken'),
    request: { query: FreeBedsQuery },
    responses: {
      200: { description: 'Per clinic and department with a count for the date; clinics that do not show theirs are absent', content: json(FreeBedsList) },
      ...refusals(
        'v1',
        merged(guarded('referrer'), {
          400: 'date missing, not a calendar date YYYY-MM-DD or before today (Europe/Berlin); department not a department key of 4 digits; an unknown parameter',
          503: 'the bed counts are unavailable',
        }),
      ),
    },
  });
  registerAnswerStatisticsPaths(registry, secured);
  registerSubscriptionPaths(registry, secured('api:subscriptions'));
  registerReferrerWorkspacePaths(registry, secured('api:referrer'));
  registerPayerRecordPaths(registry, secured('api:referrer'));
  registerClinicApiPaths(registry, secured('api:clinic'));
  registerAcceptanceWithdrawalPath(registry, secured('api:clinic'));
  registerPartyPaths(registry, secured('api:party'));
}
