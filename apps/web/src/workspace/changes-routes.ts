import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { Bundle, ServiceRequest } from '@medplum/fhirtypes';
import { buildAdmissionRequestBundle, fhirSystems, RequestForm } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { changesTexts as t } from './changes.texts.de';
import { confirmPage } from './pages/confirm.page';
import { placementOfTask, sentFormOf } from './placement-reads';
import { applies, type Change, type Placement } from './placements';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/**
 * Revoking a request and withdrawing its selection (docs/workspace.md, "Anfrage zurückziehen",
 * "Auswahl zurücknehmen"), each after a confirmation: the request is read back as last sent,
 * sent again as a new version with `status: revoked`, or as the selection with the orderDetail
 * `selected-provider-cancelled` (docs/decisions.md, "Requests"), through the public API.
 */
export function changesRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts } = context;

  for (const change of ['revoke', 'withdraw'] as const) {
    const words = t[change];
    router.get(`/requests/:taskId/${change}`, async (req, res) => {
      const { placement } = await allowed(change, req, res);
      const page = await workspacePageOf(context, req, res);
      const confirmation = { ...words, action: `/workspace/requests/${placement.id}/${change}` };
      sendPage(res, confirmPage(page, texts, placement.id, confirmation, context.csrf.tokenOf(sessionOf(res).id)));
    });

    router.post(`/requests/:taskId/${change}`, async (req, res) => {
      const { placement } = await allowed(change, req, res);
      const [task] = placement.tasks;
      const api = hospitalApiOf(context, req, res);
      const read = await sentFormOf(context, req, res, task);
      // After a withdrawal the latest version reads as a proposal with the complete patient: a proposal stays masked.
      const patient = read.stage === 'proposal' ? masked(read.patient) : read.patient;
      const form = RequestForm.parse({ ...read, patient, transmissionNumber: randomUUID() });
      const bundle = changed(buildAdmissionRequestBundle(form, { profileBase: context.profileBase }), change, context.profileBase);
      const answer = await api.send(bundle);
      if (!answer.ok) throw new HttpError('conflict', t.refused(answer.issues.map((issue) => issue.diagnostics).join(' ')));
      res.redirect(303, `/workspace/requests/${placement.id}?${change === 'revoke' ? 'revoked' : 'withdrawn'}=1`);
    });
  }

  /** The request, when the change applies: a revocation while a clinic's Task is not cancelled, a withdrawal while a clinic is selected. */
  async function allowed(change: Change, req: Request, res: Response): Promise<{ placement: Placement }> {
    const { placement } = await placementOfTask(context, req, res);
    if (!applies(change, placement)) throw new HttpError('conflict', texts.errors.badRequest);
    return { placement };
  }

  return router;
}

/** The new version: revoked, or the selection withdrawn. */
function changed(bundle: Bundle, change: Change, profileBase: string): Bundle {
  const systems = fhirSystems(profileBase);
  const entry = (bundle.entry ?? []).map((each) => {
    if (each.resource?.resourceType !== 'ServiceRequest') return each;
    const request: ServiceRequest =
      change === 'revoke'
        ? { ...each.resource, status: 'revoked' }
        : { ...each.resource, orderDetail: [{ coding: [{ system: systems.orderDetailSystem, code: 'selected-provider-cancelled' }] }] };
    return { ...each, resource: request };
  });
  return { ...bundle, entry };
}

function masked(patient: RequestForm['patient']): RequestForm['patient'] {
  const { gender, birthDate, postalCode, city } = patient;
  return { gender, birthDate, postalCode, city };
}
