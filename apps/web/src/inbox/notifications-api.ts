import { ApiErrorBody, NotificationSettings } from '@bedrequest/contracts';
import type { InternalClient } from '@bedrequest/http';
import type { Credentials } from './workspace-api';

const PATH = '/api/v1/party/users/me/notifications';

/**
 * The signed-in person's own choice of e-mail (docs/api.md, "Party and people"), made with InboxApi's
 * connection, the person's credentials and its refusals: `InboxApi.notificationsFor(call)`. The same
 * for a clinic's person and a hospital's.
 */
export class NotificationsApi {
  constructor(
    private readonly client: InternalClient,
    private readonly credentials: Credentials,
    private readonly refused: (status: 401 | 429) => Error,
  ) {}

  async read(): Promise<NotificationSettings> {
    const answer = await this.client.json(
      { method: 'GET', path: PATH, ...this.credentials },
      { 200: NotificationSettings, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  /** Sets it: the choice as stored, or the API's refusal (409: no address) with its message. */
  async set(email: boolean): Promise<{ ok: true; settings: NotificationSettings } | { ok: false; message: string }> {
    const answer = await this.client.json(
      { method: 'PUT', path: PATH, json: { email }, ...this.credentials },
      { 200: NotificationSettings, 400: ApiErrorBody, 401: ApiErrorBody, 409: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return { ok: true, settings: answer.body };
    if (answer.status === 400 || answer.status === 409) return { ok: false, message: answer.body.message };
    throw this.refused(answer.status);
  }
}
