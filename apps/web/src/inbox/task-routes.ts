import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { BusinessStatus, businessStatusOf, type RequestVersion } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { attachmentsOf, type Attachment } from './attachments';
import { confirmAnswerPage } from './pages/answer-confirm.page';
import { ERASED } from './inbox-api';
import { apiCallOf, clinicIkOf, pageContextOf, sendPage, type InboxContext } from './inbox-context';
import {
  ANSWER_CODES,
  MAX_NOTE_LENGTH,
  NOTE_REQUIRED,
  taskViewPage,
  type AnswerForm,
  type AttachmentEntry,
  type Meanwhile,
  type TaskViewModel,
  type VersionEntry,
} from './pages/task-view.page';
import { changesBetween, requestViewOf, type RequestView } from './request-view';

/**
 * What a request's page shows of what the API holds for it at a time (a request may hold 50
 * versions and 50 documents of up to 10 MiB each: docs/api.md, "Limits per request"): a page of its
 * versions, newest first (`?history=N`), and a page of its documents (`?documents=N`), each with
 * links to the pages before and after. The request itself is always shown as its newest version. An
 * attachment is read with its document alone.
 */
export const VERSIONS_SHOWN = 10;
export const DOCUMENTS_SHOWN = 20;

const TaskId = z.guid();
const Page = z.coerce.number().int().min(1).max(1_000_000).catch(1);

/** A request, the answer, and the request's attachments (the list: list-routes.ts). */
export function taskRoutes(context: InboxContext): Router {
  const router = Router();
  const { texts, formats } = context;
  const notFound = () => new HttpError('not_found', texts.errors.notFound);

  router.get('/tasks/:taskId', async (req, res) => {
    const taskId = taskIdOf(req);
    const flash = flashOf(req.query.answered, texts);
    sendPage(res, taskViewPage(await pageContextOf(context, req, res), await viewModel(req, res, taskId, { form: {}, ...(flash ? { flash } : {}) })));
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
      // The confirmation step shows the answer once more, with the request as it was answered; nothing is sent yet.
      const model = await viewModel(req, res, taskId, { form });
      if (changedSince(model, seen)) return page({ ...model, meanwhile: meanwhileOf(model, seen.version) }, 409);
      const latest = model.latest;
      const patient = latest?.view.patient;
      return sendPage(
        res,
        confirmAnswerPage(await pageContextOf(context, req, res), {
          taskId,
          businessStatus,
          note,
          patient: texts.patientShort(patient?.gender, patient?.age),
          ...(model.etag ? { etag: model.etag } : {}),
          ...(latest
            ? { version: latest.version, versionLabel: texts.task.versionOf(latest.version, formats.instant(latest.receivedAt) ?? latest.receivedAt) }
            : {}),
          ...(latest ? { admission: admissionOf(latest.view) ?? texts.task.none } : {}),
        }),
      );
    }
    const result = await context.api.answer(taskId, { businessStatus, ...(note.trim() ? { note } : {}) }, seen.tag || undefined, apiCallOf(req, res));
    if (result.status === 200 || result.status === 202) {
      return res.redirect(303, `/inbox/tasks/${taskId}?answered=${result.status === 200 ? businessStatus : 'queued'}`);
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

  async function viewModel(req: Request, res: Response, taskId: string, extra: Pick<TaskViewModel, 'form' | 'flash'>): Promise<TaskViewModel> {
    const call = apiCallOf(req, res);
    const historyPage = Page.parse(req.query.history);
    const documentsPage = Page.parse(req.query.documents);
    const historyOffset = (historyPage - 1) * VERSIONS_SHOWN;
    // The Task first: should the referrer send a version meanwhile, the page shows it with the older
    // tag, and the answer is refused (412) rather than taken for a version the person did not see.
    const read = await context.api.task(taskId, call);
    if (!read) throw notFound();
    const { task, etag } = read;
    const [newest, older, documents] = await Promise.all([
      // On a later page of the history, the newest two alone: the request as shown, and what changed in it.
      context.api.versions(taskId, versionsQuery(0, historyOffset > 0 ? 2 : VERSIONS_SHOWN + 1), call),
      historyOffset > 0 ? context.api.versions(taskId, versionsQuery(historyOffset, VERSIONS_SHOWN + 1), call) : undefined,
      context.api.documents(taskId, pageQuery(DOCUMENTS_SHOWN, (documentsPage - 1) * DOCUMENTS_SHOWN), call),
    ]);
    if (!newest) throw notFound();
    const history = historyOffset > 0 ? older : newest;
    // The request's patient data was erased: the Task alone is left (its states and answer code).
    if (newest === ERASED || history === ERASED || documents === ERASED) {
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
        ...(attachment.date ? { receivedAt: attachment.date } : {}),
      })),
    );
    const versions = entriesOf(history.items, VERSIONS_SHOWN, viewOf);
    return {
      task,
      ...(etag ? { etag } : {}),
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

/** Whether the Task is not the one the person saw: another tag, or none sent (a form of a page without one). */
function changedSince(model: TaskViewModel, seen: { tag: string }): boolean {
  return model.etag !== undefined && seen.tag !== model.etag;
}

/**
 * What changed since the person read the request at `seenVersion`: the referrer's new version with
 * what differs from the one seen (when it is among the versions read), and the Task's answer now,
 * with who gave it when that answer left a note naming them (docs/api.md, "Tasks").
 */
function meanwhileOf(model: TaskViewModel, seenVersion: number): Meanwhile {
  const { task, latest } = model;
  const seen = model.versions.find((entry) => entry.version === seenVersion);
  const code = businessStatusOf(task);
  const newest = task.note?.at(-1);
  // A note written by the Task's last change is its latest answer's: intake stamps both with one instant.
  const byLatest = newest && Date.parse(newest.time) === Date.parse(task.lastModified) ? newest : undefined;
  return {
    ...(latest && seenVersion > 0 && latest.version !== seenVersion
      ? { version: { from: seenVersion, to: latest.version, changes: seen ? changesBetween(seen.view, latest.view) : [] } }
      : {}),
    ...(code ? { answer: { businessStatus: code, at: task.lastModified, ...(byLatest ? { note: byLatest } : {}) } } : {}),
  };
}

/** The desired admission date as the request view shows it. */
function admissionOf(view: RequestView): string | undefined {
  const field = view.sections.flatMap((section) => section.fields).find((entry) => entry.key === 'request.admission');
  return typeof field?.value === 'string' ? field.value : undefined;
}

function answerErrors(form: AnswerForm, texts: InboxContext['texts']): NonNullable<AnswerForm['errors']> {
  const errors: NonNullable<AnswerForm['errors']> = [];
  const code = ANSWER_CODES.find((candidate) => candidate === form.businessStatus);
  if (!code) errors.push({ field: 'businessStatus', message: texts.answer.chooseOne });
  const note = form.note ?? '';
  if (note.length > MAX_NOTE_LENGTH) errors.push({ field: 'note', message: texts.answer.noteTooLong });
  else if (code && NOTE_REQUIRED.includes(code) && !note.trim()) errors.push({ field: 'note', message: texts.answer.noteRequired });
  return errors;
}

function flashOf(answered: unknown, texts: InboxContext['texts']): TaskViewModel['flash'] {
  if (answered === 'queued') return { kind: 'info', message: texts.task.answeredQueued };
  const code = BusinessStatus.safeParse(answered);
  return code.success ? { kind: 'success', message: texts.task.answeredOk(texts.businessStatus[code.data]) } : undefined;
}

/** A position in a URL (a document's, an attachment's), from 0; undefined for anything else. */
function positionOf(segment: string | undefined): number | undefined {
  return segment !== undefined && /^\d{1,6}$/.test(segment) ? Number(segment) : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Types a browser may show inline without running anything of the document's; the rest is downloaded. */
const INLINE_TYPES = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'text/plain']);

/**
 * What is not shown inline goes out as application/octet-stream, whatever type the sender named: a
 * browser that opens a download itself (or ignores the disposition) then has no type to render it
 * by, an HTML or SVG document of a sender included (docs/inbox.md, "Dokumente").
 */
function sendAttachment(res: Response, attachment: Attachment, download: boolean, fallbackName: string): void {
  const named = attachment.contentType.toLowerCase();
  const inline = !download && INLINE_TYPES.has(named);
  const contentType = inline ? named : 'application/octet-stream';
  res.attachment(attachment.title ?? fallbackName);
  if (inline) res.set('content-disposition', String(res.get('content-disposition')).replace(/^attachment/, 'inline'));
  res
    .status(200)
    .set({
      'content-type': contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType,
      'x-content-type-options': 'nosniff',
      // A document runs nothing: no script, no plugin, no form; a PDF viewer keeps its own sandbox.
      'content-security-policy':
        contentType === 'application/pdf'
          ? "default-src 'none'; frame-ancestors 'none'"
          : "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox",
    })
    .send(Buffer.from(attachment.data, 'base64'));
}
