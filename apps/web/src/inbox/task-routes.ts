import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { BusinessStatus, type RequestVersion } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import type { AnswerDrafts } from './answer-drafts';
import { admissionOf, answerErrors, changedSince, meanwhileOf } from './answer-steps';
import { attachmentsOf, sendAttachment } from './attachments';
import { ERASED } from './inbox-api';
import { apiCallOf, clinicIkOf, pageContextOf, sendPage, sessionOf, type InboxContext } from './inbox-context';
import { confirmAnswerPage } from './pages/answer-confirm.page';
import { deliveriesBetween } from './pages/task-history';
import { taskPrintPage } from './pages/task-print.page';
import { taskViewPage, type AnswerForm, type AttachmentEntry, type TaskViewModel, type VersionEntry } from './pages/task-view.page';
import { requestNumberOf } from './request-number';
import { changesBetween, requestViewOf, type RequestView } from './request-view';
import { withdrawRoutes } from './withdraw-routes';
import { withWorkspace } from './workspace-routes';

/**
 * What a request's page shows of what the API holds for it at a time (a request may hold 50
 * versions and 50 documents of up to 10 MiB each: docs/api.md, "Limits per request"): a page of its
 * versions, newest first (`?history=N`), and a page of its documents (`?documents=N`), each with
 * links to the pages before and after. The request itself is always shown as its newest version. An
 * attachment is read with its document alone.
 */
export const VERSIONS_SHOWN = 10;
export const DOCUMENTS_SHOWN = 20;
/** The newest entries of the clinic's history of the Task the page reads (the API's largest page). */
export const TIMELINE_READ = 50;

const TaskId = z.guid();
const Page = z.coerce.number().int().min(1).max(1_000_000).catch(1);

/**
 * A request, the answer, and the request's attachments (the list: list-routes.ts). The answer goes
 * post/redirect/get (docs/inbox.md, "Antworten"): the form's post keeps the answer as a draft in the
 * session and redirects to its confirmation, a page of its own; the confirmation's post sends it and
 * redirects to the list, which says so once (answerSentNotice). The browser's Back from the list
 * reaches the confirmation's address, which without its draft goes on to the request.
 */
export function taskRoutes(context: InboxContext, drafts: AnswerDrafts): Router {
  const router = Router();
  const { texts, formats } = context;
  const notFound = () => new HttpError('not_found', texts.errors.notFound);

  // The next open request in the list's order (open ones, most recently changed first), past the one
  // just answered; the list when there is none. Asked when followed, so it is open then.
  router.get('/tasks/next', async (req, res) => {
    const after = TaskId.safeParse(req.query.after);
    const open = await context.api.tasks(new URLSearchParams({ state: 'new', _count: '2' }), apiCallOf(req, res));
    const next = open?.items.find((task) => !after.success || task.id !== after.data);
    if (next) return res.redirect(303, `/inbox/tasks/${next.id}`);
    await drafts.sent(sessionOf(res).id, { outcome: 'none-open' });
    res.redirect(303, '/inbox/tasks');
  });

  router.get('/tasks/:taskId', async (req, res) => {
    const taskId = taskIdOf(req);
    // Once, after the selected clinic withdrew its acceptance (withdraw-routes.ts).
    const withdrawn = await drafts.takeWithdrawn(sessionOf(res).id, taskId);
    const flash: TaskViewModel['flash'] = withdrawn && {
      kind: withdrawn === 'done' ? 'success' : 'info',
      message: withdrawn === 'done' ? texts.withdraw.done : texts.withdraw.queued,
    };
    const model = await viewModel(req, res, taskId, { form: {}, ...(flash ? { flash } : {}) });
    // The clinic's workspace beside the answer (docs/inbox.md, "Gemeinsam bearbeiten"); opening the page marks its version seen.
    sendPage(res, taskViewPage(await pageContextOf(context, req, res), model.erased ? model : await withWorkspace(context, req, res, model)));
  });

  // One request to print: the summary and the request, no navigation, no form (docs/inbox.md, "A request").
  router.get('/tasks/:taskId/print', async (req, res) => {
    const taskId = taskIdOf(req);
    sendPage(res, taskPrintPage(await pageContextOf(context, req, res), await viewModel(req, res, taskId, { form: {} }), new Date()));
  });

  // The confirmation, as a page of its own: the answer from the session's draft, on the Task as the
  // person saw it; without a draft (sent, or Back after sending) the request's page.
  router.get('/tasks/:taskId/confirm', async (req, res) => {
    const taskId = taskIdOf(req);
    const draft = await drafts.load(sessionOf(res).id, taskId);
    if (!draft) return res.redirect(303, `/inbox/tasks/${taskId}`);
    const model = await viewModel(req, res, taskId, { form: { businessStatus: draft.businessStatus, note: draft.note } });
    if (changedSince(model, draft)) {
      return sendPage(res, taskViewPage(await pageContextOf(context, req, res), { ...model, meanwhile: meanwhileOf(model, draft.version) }), 409);
    }
    const latest = model.latest;
    const patient = latest?.view.patient;
    sendPage(
      res,
      confirmAnswerPage(await pageContextOf(context, req, res), {
        taskId,
        businessStatus: draft.businessStatus,
        note: draft.note,
        patient: texts.patientShort(patient?.gender, patient?.age),
        requestNumber: requestNumberOf(taskId),
        ...(model.etag ? { etag: model.etag } : {}),
        ...(latest
          ? { version: latest.version, versionLabel: texts.task.versionOf(latest.version, formats.instant(latest.receivedAt) ?? latest.receivedAt) }
          : {}),
        ...(latest ? { admission: admissionOf(latest.view) ?? texts.task.none } : {}),
      }),
    );
  });

  // Every step carries the Task's tag and the version the person saw (docs/inbox.md, "Antworten"):
  // the answer is sent with If-Match, so that one given on a Task a colleague answered or the
  // referrer supplemented meanwhile is refused (412) and the page shows what changed instead.
  router.post('/tasks/:taskId/answer', async (req, res) => {
    const taskId = taskIdOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const seen = { tag: stringOf(body.tag) ?? '', version: Number(stringOf(body.version)) || 0 };
    const form: AnswerForm = { businessStatus: stringOf(body.businessStatus), note: stringOf(body.note) ?? '' };
    const errors = answerErrors(form, texts);
    const step = stringOf(body.step);
    const page = async (model: TaskViewModel, status: number) => sendPage(res, taskViewPage(await pageContextOf(context, req, res), model), status);
    if (errors.length || step === 'edit') {
      const model = await viewModel(req, res, taskId, { form: { ...form, errors } });
      return page(changedSince(model, seen) ? { ...model, meanwhile: meanwhileOf(model, seen.version) } : model, errors.length ? 400 : 200);
    }
    const businessStatus = BusinessStatus.parse(form.businessStatus);
    const note = form.note ?? '';
    if (step !== 'confirm') {
      // On to the confirmation, nothing sent yet: the answer waits in the session, never in an address (it may name the patient).
      const read = await context.api.task(taskId, apiCallOf(req, res));
      if (!read) throw notFound();
      if (read.etag !== undefined && read.etag !== seen.tag) {
        const model = await viewModel(req, res, taskId, { form });
        return page({ ...model, meanwhile: meanwhileOf(model, seen.version) }, 409);
      }
      await drafts.save(sessionOf(res).id, taskId, { businessStatus, note, ...seen });
      return res.redirect(303, `/inbox/tasks/${taskId}/confirm`);
    }
    const result = await context.api.answer(taskId, { businessStatus, ...(note.trim() ? { note } : {}) }, seen.tag || undefined, apiCallOf(req, res));
    if (result.status === 200 || result.status === 202) {
      const session = sessionOf(res).id;
      await drafts.remove(session, taskId);
      await drafts.sent(session, { taskId, outcome: result.status === 200 ? businessStatus : 'queued' });
      return res.redirect(303, '/inbox/tasks');
    }
    if (result.status === 404) throw notFound();
    if (result.status === 412) {
      const model = await viewModel(req, res, taskId, { form });
      return page({ ...model, meanwhile: meanwhileOf(model, seen.version) }, 412);
    }
    const message = result.status === 409 ? texts.answer.conflict : `${texts.answer.invalid} ${result.message}`;
    const model = await viewModel(req, res, taskId, { form: { ...form, errors: [{ field: 'form', message }] }, flash: { kind: 'error', message } });
    await page(model, result.status);
  });

  router.get('/tasks/:taskId/documents/:n/attachments/:k', async (req, res) => {
    const taskId = taskIdOf(req);
    const [n, k] = [positionOf(req.params.n), positionOf(req.params.k)];
    if (n === undefined || k === undefined) throw notFound();
    const document = await context.api.document(taskId, n, apiCallOf(req, res));
    const attachment = document && document !== ERASED && attachmentsOf(document)[k];
    if (!attachment) throw notFound();
    sendAttachment(res, attachment, req.query.download === '1', texts.task.documentName(n + 1, k + 1));
  });

  const taskIdOf = (req: Request): string => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw notFound();
    return taskId;
  };

  // The selected clinic's one action, in the answer's steps (docs/inbox.md, "Nach der Auswahl").
  withdrawRoutes(router, context, drafts, { viewModel, taskIdOf, notFound });

  async function viewModel(req: Request, res: Response, taskId: string, extra: Pick<TaskViewModel, 'form' | 'flash' | 'withdraw'>): Promise<TaskViewModel> {
    const call = apiCallOf(req, res);
    const historyPage = Page.parse(req.query.history);
    const documentsPage = Page.parse(req.query.documents);
    const historyOffset = (historyPage - 1) * VERSIONS_SHOWN;
    // The Task first: should the referrer send a version meanwhile, the page shows it with the older
    // tag, and the answer is refused (412) rather than taken for a version the person did not see.
    const read = await context.api.task(taskId, call);
    if (!read) throw notFound();
    const { task, etag } = read;
    const [newest, older, documents, timeline, referrer] = await Promise.all([
      // On a later page of the history, the newest two alone: the request as shown, and what changed in it.
      context.api.versions(taskId, versionsQuery(0, historyOffset > 0 ? 2 : VERSIONS_SHOWN + 1), call),
      historyOffset > 0 ? context.api.versions(taskId, versionsQuery(historyOffset, VERSIONS_SHOWN + 1), call) : undefined,
      context.api.documents(taskId, pageQuery(DOCUMENTS_SHOWN, (documentsPage - 1) * DOCUMENTS_SHOWN), call),
      // Answers with their authors, deliveries of documents (docs/api.md, "Clinic API"); undefined from a gateway without it.
      context.api.history(taskId, pageQuery(TIMELINE_READ, 0), call),
      // Whom to call at the referrer (docs/inbox.md, "A request"): the page is shown without it should it fail.
      context.api.referrer(taskId, call).catch(() => undefined),
    ]);
    if (!newest) throw notFound();
    const history = historyOffset > 0 ? older : newest;
    // The request's patient data was erased: the Task alone is left (its states and answer code).
    if (newest === ERASED || history === ERASED || documents === ERASED || timeline === ERASED) {
      return { task, versions: [], history: { page: 1, pages: 1 }, attachments: [], documents: { page: 1, pages: 1 }, formats, erased: true, ...extra };
    }
    if (!history) throw notFound();
    const today = new Date();
    const viewOf = (version: RequestVersion) =>
      requestViewOf(version.bundle, { clinicIk: clinicIkOf(res), profileBase: context.profileBase, texts, formats, today });
    const shownDocuments = documents ?? { total: 0, items: [] };
    const documentsOffset = (documentsPage - 1) * DOCUMENTS_SHOWN;
    const attachments: AttachmentEntry[] = shownDocuments.items.flatMap((document, n) =>
      attachmentsOf(document).map((attachment, k) => ({
        document: documentsOffset + n,
        index: k,
        contentType: attachment.contentType,
        size: attachment.size,
        ...(attachment.title ? { title: attachment.title } : {}),
        ...(attachment.kind ? { kind: attachment.kind } : {}),
        ...(attachment.date ? { receivedAt: attachment.date } : {}),
      })),
    );
    const versions = entriesOf(history.items, VERSIONS_SHOWN, viewOf);
    // The deliveries of documents between the version before this page's oldest and, past the first page, its newest.
    const deliveries = deliveriesBetween(timeline?.items ?? [], history.items[VERSIONS_SHOWN], historyOffset > 0 ? versions.at(-1) : undefined);
    return {
      task,
      ...(etag ? { etag } : {}),
      ...(referrer ? { referrer } : {}),
      ...(timeline ? { timeline: { items: timeline.items, total: timeline.total }, deliveries } : {}),
      // On the history's first page its newest entry is the request as shown: not read twice.
      latest: historyOffset > 0 ? entriesOf(newest.items, 1, viewOf).at(-1) : versions.at(-1),
      versions,
      history: { page: historyPage, pages: pagesOf(history.total, VERSIONS_SHOWN) },
      attachments,
      documents: { page: documentsPage, pages: pagesOf(shownDocuments.total, DOCUMENTS_SHOWN) },
      formats,
      ...extra,
    };
  }

  return router;
}

/**
 * `count` versions, newest first, from `offset`: a page asks for one more than it shows, so that the
 * oldest shown is compared with the one before it.
 */
function versionsQuery(offset: number, count: number): URLSearchParams {
  const query = pageQuery(count, offset);
  query.set('_sort', '-version');
  return query;
}

function pageQuery(count: number, offset: number): URLSearchParams {
  const query = new URLSearchParams({ _count: String(count) });
  if (offset > 0) query.set('_offset', String(offset));
  return query;
}

const pagesOf = (total: number, size: number) => Math.max(1, Math.ceil(total / size));

/**
 * The first `shown` of `items` (versions, newest first), oldest first, each with what changed
 * against the version before it when that is among `items`.
 */
function entriesOf(items: readonly RequestVersion[], shown: number, viewOf: (version: RequestVersion) => RequestView): VersionEntry[] {
  const views = items.slice(0, shown + 1).map((version) => ({ version, view: viewOf(version) }));
  return views
    .slice(0, shown)
    .map(({ version, view }, index) => {
      const previous = views[index + 1];
      return { version: version.version, receivedAt: version.receivedAt, view, ...(previous ? { changes: changesBetween(previous.view, view) } : {}) };
    })
    .reverse();
}

/** A position in a URL (a document's, an attachment's), from 0; undefined for anything else. */
function positionOf(segment: string | undefined): number | undefined {
  return segment !== undefined && /^\d{1,6}$/.test(segment) ? Number(segment) : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
