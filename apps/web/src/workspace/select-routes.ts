import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { buildAdmissionRequestBundle, RequestForm } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { selectPage, type SelectView } from './pages/select.page';
import { placementOfTask, sentFormOf } from './placement-reads';
import { ikOf } from './placements';
import { selectTexts as t } from './select.texts.de';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

const FIELDS = ['familyName', 'givenNames', 'birthDate', 'streetLine', 'phone'] as const;

/**
 * Selecting a clinic that accepted (docs/workspace.md, "Klinik auswählen"): the page asks for the
 * complete master data, then reads the request back as the party last sent it (docs/api.md,
 * "Reading a request back"), makes it the selection version (`intent: order`, the one clinic, the
 * complete patient) with `@bedrequest/fhir-model`'s request form and sends it through the public API.
 * The service cancels the other clinics' Tasks and reserves the clinic's bed.
 */
export function selectRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts } = context;

  /** The request and the accepting clinic's Task the address names; 404 for another party's, 409 for a clinic that did not accept. */
  const choiceOf = async (req: Request, res: Response) => {
    const { placement, clinics } = await placementOfTask(context, req, res);
    const task = placement.tasks.find((each) => each.id === String(req.params.clinicTaskId));
    if (!task) throw new HttpError('not_found', texts.errors.notFound);
    if (task.status !== 'accepted') throw new HttpError('conflict', t.notAccepted);
    return { placement, task, clinic: texts.clinicOf(clinics.get(ikOf(task))?.name, ikOf(task)) };
  };
  const render = async (req: Request, res: Response, view: Omit<SelectView, 'csrfToken'>, status = 200) => {
    sendPage(res, selectPage(await workspacePageOf(context, req, res), { ...view, csrfToken: context.csrf.tokenOf(sessionOf(res).id) }), status);
  };

  router.get('/requests/:taskId/select/:clinicTaskId', async (req, res) => {
    const { placement, task, clinic } = await choiceOf(req, res);
    await render(req, res, { placementId: placement.id, clinicTaskId: task.id, clinic, fields: {}, errors: new Map(), summary: [] });
  });

  router.post('/requests/:taskId/select/:clinicTaskId', async (req, res) => {
    const { placement, task, clinic } = await choiceOf(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const fields = Object.fromEntries(FIELDS.map((name) => [name, typeof body[name] === 'string' ? (body[name] as string).trim() : '']));
    const view = { placementId: placement.id, clinicTaskId: task.id, clinic, fields };
    const api = hospitalApiOf(context, req, res);
    const form = selectionOf(await sentFormOf(context, req, res, task), ikOf(task), fields);
    const parsed = RequestForm.safeParse(form);
    if (!parsed.success) {
      const errors = new Map(parsed.error.issues.map((issue) => [fieldOf(issue.path), t.fieldErrors[fieldOf(issue.path)] ?? t.otherError]));
      return render(req, res, { ...view, errors, summary: [...new Set(errors.values())] }, 400);
    }
    const answer = await api.send(buildAdmissionRequestBundle(parsed.data, { profileBase: context.profileBase }));
    if (!answer.ok) {
      const summary = answer.issues.map((issue) => `${t.refused} ${issue.diagnostics}`);
      return render(req, res, { ...view, errors: new Map([['form', t.refused]]), summary }, answer.status === 409 ? 409 : 400);
    }
    res.redirect(303, `/workspace/requests/${placement.id}?selected=1`);
  });

  return router;
}

/** The request as last sent, made the selection of the clinic `ik`, with the complete master data typed. */
function selectionOf(sent: RequestForm, ik: string, fields: Record<string, string>): unknown {
  const given = fields.givenNames ? fields.givenNames.split(/\s+/).filter(Boolean) : [];
  return {
    ...sent,
    stage: 'selection',
    transmissionNumber: randomUUID(),
    performers: sent.performers.filter((performer) => performer.ik === ik),
    patient: {
      ...sent.patient,
      ...(fields.familyName ? { familyName: fields.familyName } : {}),
      ...(given.length ? { givenNames: given } : {}),
      // The full date, where the requests carried the year alone (docs/workspace.md, "Klinik auswählen").
      ...(fields.birthDate ? { birthDate: fields.birthDate } : {}),
      ...(fields.streetLine ? { streetLine: fields.streetLine } : {}),
      ...(fields.phone ? { phone: fields.phone } : {}),
    },
  };
}

function fieldOf(path: readonly PropertyKey[]): string {
  const name = path[0] === 'patient' ? String(path[1] ?? '') : '';
  return (FIELDS as readonly string[]).includes(name) ? name : 'form';
}
