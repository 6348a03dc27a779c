import { Router, type Request, type Response } from 'express';
import { buildDocumentBundle, DOCUMENT_TITLE_MAX_LENGTH, documentBundleCapacity } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { apiCallOf, sendPage, sessionOf } from '../inbox/inbox-context';
import { documentsTexts as t } from './documents.texts.de';
import { readUpload, UPLOAD_ROWS, type Upload, type UploadLimits } from './documents-upload';
import { documentsPage, type DocumentsView } from './pages/documents.page';
import { placementOfTask } from './placement-reads';
import { applies, requestOf } from './placements';
import { hospitalApiOf, MOUNT, workspacePageOf, type WorkspaceContext } from './workspace-context';

/**
 * Sending documents for a request (docs/workspace.md, "Unterlagen senden"): PDF, PNG and JPEG files,
 * each with its kind, checked by their first bytes and their sizes while the form streams in
 * (documents-upload.ts), then sent as one DocumentBundle (docs/api.md, "Sending a bundle") through the
 * public API with the person's token. Nothing is sent while any file is refused; file names are never
 * read, so none reaches the bundle, a URL or a log.
 */
export function documentsRoutes(context: WorkspaceContext): Router {
  const router = Router();
  // One file may fill the bundle alone: the limit of each is that of all together.
  const capacity = documentBundleCapacity(context.profileBase);
  const limits: UploadLimits = { fileBytes: capacity, totalBytes: capacity, kindLength: DOCUMENT_TITLE_MAX_LENGTH };

  /** The request the address names, while documents may still be sent for it: 404 for another party's, 409 once revoked or erased. */
  const openRequestOf = async (req: Request, res: Response) => {
    const { placement } = await placementOfTask(context, req, res);
    const [task] = placement.tasks;
    if (!task || !applies('revoke', placement)) throw new HttpError('conflict', t.closed);
    return { placement, requestIdentifier: requestOf(task) };
  };
  const render = async (req: Request, res: Response, view: Omit<DocumentsView, 'csrfToken' | 'limits'>, status = 200) => {
    const page = await workspacePageOf(context, req, res);
    const csrfToken = context.csrf.tokenOf(sessionOf(res).id);
    sendPage(res, documentsPage(page, { ...view, csrfToken, limits }), status);
  };

  router.get('/requests/:taskId/documents', async (req, res) => {
    const { placement } = await openRequestOf(req, res);
    await render(req, res, { placementId: placement.id, kinds: new Map(), errors: new Map() });
  });

  router.post('/requests/:taskId/documents', async (req, res) => {
    const upload = await readUpload(req, limits);
    // The session guard left the token to this route: it is in the multipart body.
    if (!context.csrf.verify(req, sessionOf(res).id) && !context.csrf.matches(upload.csrfToken, sessionOf(res).id)) {
      throw new HttpError('forbidden', context.texts.errors.forbidden);
    }
    const { placement, requestIdentifier } = await openRequestOf(req, res);
    const again = (errors: ReadonlyMap<string, string>, status: number, refusal?: string[]) =>
      render(req, res, { placementId: placement.id, kinds: upload.kinds, errors, ...(refusal ? { refusal } : {}) }, status);
    const errors = errorsOf(upload, limits);
    if (errors.size > 0) return again(errors, [...upload.refused.values()].some((why) => why !== 'type') ? 413 : 400);

    const documents = [...upload.files.entries()]
      .sort(([a], [b]) => a - b)
      .map(([row, file]) => ({ title: kindOf(upload, row), contentType: file.contentType, content: file.content }));
    const author = await context.parties.nameOf(sessionOf(res).principal.partyId, apiCallOf(req, res));
    const bundle = buildDocumentBundle(documents, { profileBase: context.profileBase, requestIdentifier, author });
    const sent = await hospitalApiOf(context, req, res).send(bundle);
    if (!sent.ok) {
      const words = sent.issues.map((issue) => issue.diagnostics).filter(Boolean);
      const refusal = [...(t.refusedStatus[sent.status] ? [t.refusedStatus[sent.status] ?? ''] : []), ...words];
      return again(new Map(), sent.status === 409 || sent.status === 413 ? sent.status : 400, refusal.length ? refusal : [t.refused]);
    }
    res.redirect(303, `${MOUNT}/requests/${placement.id}?documents=1`);
  });

  return router;
}

/** A kind as sent: trimmed, without control or format characters (which JSON would make six bytes each). */
function kindOf(upload: Upload, row: number): string {
  return (upload.kinds.get(row) ?? '').replace(/\p{C}/gu, '').trim();
}

/** What keeps the form from being sent, by field: every file refused, every file without its kind, every kind without its file. */
function errorsOf(upload: Upload, limits: UploadLimits): Map<string, string> {
  const errors = new Map<string, string>();
  if (!upload.complete) return new Map([['file-1', t.errors.form]]);
  for (let row = 1; row <= UPLOAD_ROWS; row += 1) {
    const refused = upload.refused.get(row);
    if (refused === 'type') errors.set(`file-${row}`, t.errors.type);
    if (refused === 'size') errors.set(`file-${row}`, t.errors.size(limits.fileBytes));
    if (refused === 'total') errors.set(`file-${row}`, t.errors.total(limits.totalBytes));
    const chosen = upload.files.has(row) || refused !== undefined;
    const kind = kindOf(upload, row);
    if (upload.longKinds.has(row)) errors.set(`kind-${row}`, t.errors.kindLength(limits.kindLength));
    else if (chosen && !kind) errors.set(`kind-${row}`, t.errors.kind);
    else if (!chosen && kind) errors.set(`file-${row}`, t.errors.kindWithoutFile);
  }
  if (errors.size === 0 && upload.files.size === 0) errors.set('file-1', t.errors.none);
  return errors;
}
