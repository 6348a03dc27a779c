import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { AnswerStatisticsList, OwnAnswerStatistics } from '@bedrequest/contracts';
import { AnswerStatisticsQuery } from '../clinics/answer-statistics.router';
import { guarded, json, merged, refusals, type SecuredBy } from './responses';

/** The answer statistics (docs/api.md, "Answer statistics"): every clinic's to referrers, a clinic's own to it. */
export function registerAnswerStatisticsPaths(registry: OpenAPIRegistry, secured: SecuredBy): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v1/kliniken/answer-statistics',
    operationId: 'listAnswerStatistics',
    summary: "Every clinic's time to answer and share of acceptances per department, last 90 days (referrer tokens only)",
    security: secured('api:kliniken'),
    request: { query: AnswerStatisticsQuery },
    responses: {
      200: {
        description:
          'Per clinic and department with answers in the window: the count, and from 5 answers on the median and 90th percentile seconds from sending to the first answer and the share of acceptances',
        content: json(AnswerStatisticsList),
      },
      ...refusals(
        'v1',
        merged(guarded('referrer'), { 400: 'department not a department key of 4 digits; an unknown parameter', 503: 'intake is unavailable' }),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/answer-statistics',
    operationId: 'readOwnAnswerStatistics',
    summary: "The clinic's own answer figures per department beside the median of its peers', last 90 days (clinic tokens only)",
    security: secured('api:clinic'),
    responses: {
      200: { description: "Its own figures; the peers' only with at least 3 peers of 5 answers or more", content: json(OwnAnswerStatistics) },
      ...refusals('v1', merged(guarded('clinic'), { 400: 'an unknown parameter', 503: 'intake is unavailable' })),
    },
  });
}
