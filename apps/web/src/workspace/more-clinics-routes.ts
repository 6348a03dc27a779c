import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { buildAdmissionRequestBundle, RequestForm } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { moreClinicsTexts as t } from './more-clinics.texts.de';
import { clinicsOffering } from './new-request-routes';
import { moreClinicsPage, type MoreClinicsView } from './pages/more-clinics.page';
import { placementOfTask, sentFormOf } from './placement-reads';
import { canAskMoreClinics, ikOf } from './placements';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/**
 * Asking further clinics for a request (docs/workspace.md, "Weitere Kliniken anfragen"), after a
 * decline or a clinic past its deadline: the request as last sent (read back: docs/api.md, "Reading
 * a request back"), sent again as its next version with the clinics ticked added to its performers.
 * A version that only adds clinics leaves the clinics asked before as they are (docs/api.md,
 * "Answer deadlines").
 */
export function moreClinicsRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts } = context;

  /** The open request, what it last sent, and the clinics of its specialty it did not go to yet; 409 once selected or closed. */
  const choiceOf = async (req: Request, res: Response) => {
    const { placement, clinics } = await placementOfTask(context, req, res);
    if (!canAskMoreClinics(placement)) throw new HttpError('conflict', t.closed);
    const sent = await sentFormOf(context, req, res, placement.tasks[0]);
    const asked = new Set([...placement.tasks.map(ikOf), ...sent.performers.map((performer) => performer.ik)]);
    const offering = await clinicsOffering(context, req, res, sent.specialty, sent.desiredAdmissionDate);
    return {
      placement,
      sent,
      asked: [...asked].map((ik) => texts.clinicOf(clinics.get(ik)?.name, ik)),
      clinics: offering.clinics.filter((clinic) => !asked.has(clinic.ik)),
      freeBeds: offering.freeBeds,
      answerFigures: offering.answerFigures,
    };
  };
  const render = async (req: Request, res: Response, view: Omit<MoreClinicsView, 'csrfToken'>, status = 200) => {
    sendPage(res, moreClinicsPage(await workspacePageOf(context, req, res), texts, { ...view, csrfToken: context.csrf.tokenOf(sessionOf(res).id) }), status);
  };

  router.get('/requests/:taskId/more-clinics', async (req, res) => {
    const { placement, asked, clinics, freeBeds, answerFigures } = await choiceOf(req, res);
    await render(req, res, { placementId: placement.id, asked, clinics, freeBeds, answerFigures, ticked: [] });
  });

  router.post('/requests/:taskId/more-clinics', async (req, res) => {
    const { placement, sent, asked, clinics, freeBeds, answerFigures } = await choiceOf(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const named = (Array.isArray(body.clinic) ? body.clinic : [body.clinic]).filter((ik): ik is string => typeof ik === 'string');
    const ticked = clinics.filter((clinic) => named.includes(clinic.ik));
    const view = { placementId: placement.id, asked, clinics, freeBeds, answerFigures, ticked: ticked.map((clinic) => clinic.ik) };
    if (!ticked.length) return render(req, res, { ...view, error: t.noneTicked }, 400);
    const form = RequestForm.safeParse({
      ...sent,
      stage: 'proposal',
      transmissionNumber: randomUUID(),
      performers: [...sent.performers, ...ticked.map((clinic) => ({ ik: clinic.ik, name: clinic.name }))],
    });
    // A request sent by the hospital's own software may hold what the form cannot carry again.
    if (!form.success) return render(req, res, { ...view, refusal: form.error.issues.map((issue) => issue.message) }, 400);
    const answer = await hospitalApiOf(context, req, res).send(buildAdmissionRequestBundle(form.data, { profileBase: context.profileBase }));
    if (!answer.ok) return render(req, res, { ...view, refusal: answer.issues.map((issue) => issue.diagnostics) }, answer.status === 409 ? 409 : 400);
    res.redirect(303, `/workspace/requests/${placement.id}?moreClinics=1`);
  });

  return router;
}
