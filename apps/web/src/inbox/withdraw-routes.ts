import type { Request, Response, Router } from 'express';
import type { HttpError } from '@bedrequest/http';
import type { AnswerDrafts } from './answer-drafts';
import { admissionOf, changedSince, meanwhileOf } from './answer-steps';
import { apiCallOf, pageContextOf, sendPage, sessionOf, type InboxContext } from './inbox-context';
import type { TaskViewModel } from './pages/task-view.page';
import { taskViewPage } from './pages/task-view.page';
import { confirmWithdrawPage, withdrawErrors, type WithdrawForm } from './pages/withdraw-form';
import { requestNumberOf } from './request-number';

/** What the withdrawal's routes take of the request's (task-routes.ts). */
export interface RequestPageReads {
  viewModel(req: Request, res: Response, taskId: string, extra: Pick<TaskViewModel, 'form' | 'flash' | 'withdraw'>): Promise<TaskViewModel>;
  taskIdOf(req: Request): string;
  notFound(): HttpError;
}

/**
 * The selected clinic's withdrawal of its acceptance (docs/inbox.md, "Nach der Auswahl"), in the
 * answer's steps: the form's post keeps the reason as a draft in the session and redirects to its
 * confirmation (`GET /inbox/tasks/{id}/withdraw/confirm`); the confirmation's post sends it with the
 * Task's tag as If-Match and redirects to the request, which then shows the Task rejected and says
 * once that the acceptance was withdrawn. A Task changed meanwhile (an answer of a colleague, a
 * referrer's withdrawal) is refused and the page shows what changed, as for an answer.
 */
export function withdrawRoutes(router: Router, context: InboxContext, drafts: AnswerDrafts, reads: RequestPageReads): void {
  const { texts } = context;
  const page = async (req: Request, res: Response, model: TaskViewModel, status: number) =>
    sendPage(res, taskViewPage(await pageContextOf(context, req, res), model), status);

  router.get('/tasks/:taskId/withdraw/confirm', async (req, res) => {
    const taskId = reads.taskIdOf(req);
    const draft = await drafts.loadWithdrawal(sessionOf(res).id, taskId);
    if (!draft) return res.redirect(303, `/inbox/tasks/${taskId}`);
    const model = await reads.viewModel(req, res, taskId, { form: {}, withdraw: { reason: draft.reason } });
    if (changedSince(model, draft)) return page(req, res, { ...model, meanwhile: { ...meanwhileOf(model, draft.version), action: 'withdraw' } }, 409);
    const latest = model.latest;
    sendPage(
      res,
      confirmWithdrawPage(await pageContextOf(context, req, res), {
        taskId,
        reason: draft.reason,
        patient: texts.patientShort(latest?.view.patient.gender, latest?.view.patient.age),
        requestNumber: requestNumberOf(taskId),
        version: latest?.version ?? draft.version,
        ...(model.etag ? { etag: model.etag } : {}),
        ...(latest ? { admission: admissionOf(latest.view) ?? texts.task.none } : {}),
      }),
    );
  });

  router.post('/tasks/:taskId/withdraw', async (req, res) => {
    const taskId = reads.taskIdOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const seen = { tag: stringOf(body.tag) ?? '', version: Number(stringOf(body.version)) || 0 };
    const form: WithdrawForm = { reason: stringOf(body.reason) ?? '' };
    const errors = withdrawErrors(form, texts);
    const step = stringOf(body.step);
    const stale = (model: TaskViewModel): TaskViewModel => ({ ...model, meanwhile: { ...meanwhileOf(model, seen.version), action: 'withdraw' } });
    if (errors.length || step === 'edit') {
      const model = await reads.viewModel(req, res, taskId, { form: {}, withdraw: { ...form, errors } });
      return page(req, res, changedSince(model, seen) ? stale(model) : model, errors.length ? 400 : 200);
    }
    const reason = form.reason ?? '';
    if (step !== 'confirm') {
      // On to the confirmation, nothing sent: the reason waits in the session, never in an address (it may name the patient).
      const read = await context.api.task(taskId, apiCallOf(req, res));
      if (!read) throw reads.notFound();
      if (read.etag !== undefined && read.etag !== seen.tag) {
        return page(req, res, stale(await reads.viewModel(req, res, taskId, { form: {}, withdraw: form })), 409);
      }
      await drafts.saveWithdrawal(sessionOf(res).id, taskId, { reason, ...seen });
      return res.redirect(303, `/inbox/tasks/${taskId}/withdraw/confirm`);
    }
    const result = await context.api.withdrawAcceptance(taskId, reason, seen.tag || undefined, apiCallOf(req, res));
    if (result.status === 200 || result.status === 202) {
      await drafts.withdrawn(sessionOf(res).id, taskId, result.status === 200 ? 'done' : 'queued');
      return res.redirect(303, `/inbox/tasks/${taskId}`);
    }
    if (result.status === 404) throw reads.notFound();
    if (result.status === 412) return page(req, res, stale(await reads.viewModel(req, res, taskId, { form: {}, withdraw: form })), 412);
    const message = result.status === 409 ? texts.withdraw.conflict : `${texts.withdraw.invalid} ${result.message}`;
    const model = await reads.viewModel(req, res, taskId, {
      form: {},
      withdraw: { ...form, errors: [{ field: 'form', message }] },
      flash: { kind: 'error', message },
    });
    await page(req, res, model, result.status);
  });
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
