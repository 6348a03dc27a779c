import { Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { TaskHistory } from '@bedrequest/contracts';
import { erasedMessage } from '@bedrequest/fhir-model';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf, personOf, requestGrantOf, type Caller } from '../access';
import type { AuditTrail } from '../audit';
import { type PrismaClient } from '../generated/prisma/client';
import { sealedFor, type SealedFields } from '../persistence';
import { pageOf, PageQuery } from '../search';
import { historyOf, type ClinicRead, type StoredHistoryEntry, type TaskNote } from '../tasks';

/**
 * A Task's history for its clinic (docs/api.md, "Clinic API": `GET /api/v1/clinic/tasks/{taskId}/history`):
 * its answers with their notes and authors, the deliveries of documents and the request's changes,
 * newest first (tasks/task-history.ts), a page at a time like the versions and documents. Not found
 * for a Task the clinic may not see (a cancelled clinic reads its Task's history), erased once the
 * request's patient data was erased. The notes may describe the patient: the read is recorded in
 * the audit trail before it is answered, like a Task read.
 */
export class ClinicTaskHistoryReads {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly fields: SealedFields,
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  async history(taskId: string, caller: Caller, query: PageQuery): Promise<ClinicRead<TaskHistory>> {
    if (!z.guid().safeParse(taskId).success) return { outcome: 'not-found' };
    const task = await this.prisma.clinicTask.findUnique({
      where: { id: taskId },
      select: {
        id: true,
        clinicIk: true,
        sentVersion: true,
        cancelledAt: true,
        sealedNotes: true,
        sealedHistory: true,
        request: { select: { identifier: true, referrerPartyId: true, erasure: { select: { erasedAt: true } } } },
      },
    });
    const grant = task && requestGrantOf(caller.viewer, { ...task, referrerPartyId: task.request.referrerPartyId });
    if (!task || !grant) return { outcome: 'not-found' };
    if (task.request.erasure) return { outcome: 'erased', erasedAt: task.request.erasure.erasedAt };
    const [notes, stored] = await Promise.all([
      task.sealedNotes ? this.fields.open<TaskNote[]>(sealedFor.notes(task.id), task.sealedNotes) : [],
      task.sealedHistory ? this.fields.open<StoredHistoryEntry[]>(sealedFor.history(task.id), task.sealedHistory) : [],
    ]);
    const entries = historyOf(notes, stored, task.clinicIk);
    // Entries are small (a note at most 4000 characters): the page is bounded by `_count` alone.
    const page = pageOf(
      entries.map((entry) => ({ entry, bytes: 0 })),
      query,
      Number.POSITIVE_INFINITY,
    );
    await this.audit.record([
      {
        interaction: 'read',
        agent: { kind: 'clinic', ...personOf(caller), ik: task.clinicIk },
        request: { identifier: task.request.identifier, ownerPartyId: task.request.referrerPartyId },
        resources: [{ type: 'Task', id: task.id }],
        source: 'intake',
      },
    ]);
    return { outcome: 'found', value: { total: page.total, items: page.rows.map((row) => row.entry), ...(page.next ? { next: page.next } : {}) } };
  }
}

/**
 * Intake's internal read behind the gateway's `GET /api/v1/clinic/tasks/{taskId}/history`, called
 * with the clinic's forwarded access token: `GET /internal/clinic-tasks/{id}/history?_count=&_offset=`,
 * 200 `{total, items, next?}`; 400 for another parameter; 404 for a Task the clinic may not see; 410
 * once its request's patient data was erased. Errors are `{"error", "message"}`, which the gateway
 * passes on.
 */
export function clinicTaskHistoryRouter(reads: ClinicTaskHistoryReads, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  router.use('/internal/clinic-tasks/:id/history', requireToken({ verifier, roles: ['clinic'] }));
  router.get('/internal/clinic-tasks/:id/history', async (req, res) => {
    const query = PageQuery.safeParse(req.query);
    if (!query.success) throw new HttpError('invalid_request', query.error.issues[0]?.message ?? 'invalid query');
    const history = await reads.history(req.params.id, callerOf(req, res), query.data);
    if (history.outcome === 'not-found') throw new HttpError('not_found', 'no such Task');
    if (history.outcome === 'erased') throw new HttpError('gone', erasedMessage(history.erasedAt));
    res.json(history.value);
  });
  router.use('/internal/clinic-tasks/:id/history', jsonErrorHandler(logger));
  return router;
}
