import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiErrorBody, ReferrerContact } from '@bedrequest/contracts';
import { HttpError, InternalClient, jsonErrorHandler, type TokenSource } from '@bedrequest/http';
import { forwardedCallOf, forwardedHeaders, intakeConnection, type ForwardedCall } from '../fhir/intake.client';

const ReferrerOfTask = z.object({ partyId: z.string() });

/**
 * Whom a clinic calls about a request: intake tells which party sent the Task's request (with the
 * clinic's forwarded token, so that intake's access policy decides), auth that party's name and
 * contact (with the gateway's service token: auth owns the parties).
 */
export class ReferrerContacts {
  private readonly intake: InternalClient;
  private readonly auth: InternalClient;

  constructor(
    urls: { intakeUrl: string; authUrl: string },
    private readonly serviceTokens: TokenSource,
    timeoutMs = 10_000,
  ) {
    this.intake = intakeConnection(urls.intakeUrl, 'the Task store is unavailable; please retry', { timeoutMs, connections: 2 });
    this.auth = new InternalClient({
      service: 'auth',
      baseUrl: urls.authUrl,
      timeoutMs,
      unavailableMessage: "the referrer's contact is unavailable; please retry",
      connections: 2,
    });
  }

  /** The contact of the Task's referrer; undefined for a Task the clinic may not see. */
  async of(taskId: string, call: ForwardedCall): Promise<ReferrerContact | undefined> {
    const task = await this.intake.json(
      {
        method: 'GET',
        path: `/internal/clinic-tasks/${encodeURIComponent(taskId)}/referrer`,
        credential: call.token,
        correlationId: call.correlationId,
        headers: forwardedHeaders(call),
      },
      { 200: ReferrerOfTask, 404: ApiErrorBody },
    );
    if (task.status === 404) return undefined;
    const party = await this.auth.json(
      {
        method: 'GET',
        path: `/internal/parties/${encodeURIComponent(task.body.partyId)}/contact`,
        credential: this.serviceTokens,
        correlationId: call.correlationId,
      },
      { 200: ReferrerContact, 404: ApiErrorBody },
    );
    // A request of a party removed from auth's database (none is, today: parties are disabled, not deleted).
    if (party.status === 404) throw new HttpError('not_found', "the request's referrer is no longer registered");
    return party.body;
  }

  close(): Promise<void> {
    return Promise.all([this.intake.close(), this.auth.close()]).then(() => undefined);
  }
}

/**
 * `GET /tasks/{taskId}/referrer` (clinic tokens only; mounted behind the clinic-role guard at
 * `/api/v1/clinic`; docs/api.md, "Clinic API"): 200 `{name, contactName?, contactPhone?, contactEmail?}`,
 * the referrer party's name and contact as the operator registered them (docs/parties.md, "Contact");
 * 404 for a Task the clinic may not see. Not patient data; `Cache-Control: no-store` all the same,
 * since the contact may change.
 */
export function referrerContactRouter(options: { contacts: ReferrerContacts; logger: Logger }): Router {
  const router = Router();
  router.get('/tasks/:taskId/referrer', async (req: Request, res: Response) => {
    const taskId = String(req.params.taskId);
    if (!z.guid().safeParse(taskId).success) throw new HttpError('not_found', 'no such Task');
    const contact = await options.contacts.of(taskId, forwardedCallOf(req, res));
    if (!contact) throw new HttpError('not_found', 'no such Task');
    res.set('cache-control', 'no-store').json(contact);
  });
  router.use('/tasks/:taskId/referrer', jsonErrorHandler(options.logger));
  return router;
}
