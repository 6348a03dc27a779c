import { ApiErrorBody, OwnAnswerStatistics } from '@bedrequest/contracts';
import { HttpError, type InternalClient } from '@bedrequest/http';
import type { Credentials } from './workspace-api';

/**
 * The clinic's own answer statistics beside its peers' median (docs/api.md, "Answer statistics"),
 * made with InboxApi's connection and the person's credentials: `InboxApi.answerStatisticsFor(call)`.
 */
export class AnswerStatisticsApi {
  constructor(
    private readonly client: InternalClient,
    private readonly credentials: Credentials,
    private readonly refused: (status: 401 | 429) => Error,
  ) {}

  async own(): Promise<OwnAnswerStatistics> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/clinic/answer-statistics', ...this.credentials },
      { 200: OwnAnswerStatistics, 401: ApiErrorBody, 403: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body;
    if (answer.status === 403) throw new HttpError('forbidden', answer.body.message);
    throw this.refused(answer.status);
  }
}
