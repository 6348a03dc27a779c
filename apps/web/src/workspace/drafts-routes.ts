import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { SPECIALTIES } from '@bedrequest/fhir-model';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { ownDataTexts } from './own-data.texts.de';
import { draftsPage } from './pages/drafts.page';
import type { NewRequestInput } from './pages/new-request.page';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';
import type { WorkspaceTexts } from './workspace.texts.de';

const t = ownDataTexts.drafts;

/** A draft's content as the form saves it: what was typed, by field name, and the clinics ticked. */
const DraftContent = z.object({ fields: z.record(z.string(), z.string()), clinics: z.array(z.string()) });

/**
 * The hospital's drafts (docs/workspace.md, "Entwürfe"), kept by the service beside its requests
 * (docs/api.md, "The hospital's own data"): the list, and deleting one. A draft is opened in the
 * new-request form (`/requests/new?draft=<id>`; the id is the service's, no patient data) and
 * deleted there once sent.
 */
export function draftsRoutes(context: WorkspaceContext): Router {
  const router = Router();

  router.get('/drafts', async (req, res) => {
    const [drafts, page] = await Promise.all([hospitalApiOf(context, req, res).referrerData().drafts(), workspacePageOf(context, req, res)]);
    const flash = req.query.deleted === '1' ? t.deleted : undefined;
    sendPage(res, draftsPage(page, { drafts, formats: context.formats, csrfToken: context.csrf.tokenOf(sessionOf(res).id) }, flash));
  });

  router.post('/drafts/:draftId/delete', async (req, res) => {
    await hospitalApiOf(context, req, res).referrerData().deleteDraft(String(req.params.draftId));
    res.redirect(303, '/workspace/drafts?deleted=1');
  });

  return router;
}

/** The draft the address names, as the form's input; undefined for one that is gone. */
export async function draftOf(
  context: WorkspaceContext,
  req: Request,
  res: Response,
  id: string,
): Promise<{ input: NewRequestInput; savedAt: string } | undefined> {
  const draft = await hospitalApiOf(context, req, res).referrerData().draft(id);
  const content = DraftContent.safeParse(draft?.content);
  return draft && content.success ? { input: content.data, savedAt: draft.savedAt } : undefined;
}

/** What the drafts' list calls a draft: the specialty, the admission date, the patient's birth year, the internal case number. */
export function draftLabelOf(input: NewRequestInput, texts: WorkspaceTexts): string {
  const f = input.fields;
  const specialty = SPECIALTIES.find((row) => row.code === f.specialty);
  const parts = [
    specialty ? (texts.specialty[specialty.code] ?? specialty.display) : '',
    f.desiredAdmissionDate ? t.admission(f.desiredAdmissionDate) : '',
    f['patient.birthDate'] ? t.born(f['patient.birthDate'].slice(0, 4)) : '',
    f.ownCaseNumber ?? '',
  ].filter(Boolean);
  return parts.length ? t.label(parts) : t.untitled;
}
