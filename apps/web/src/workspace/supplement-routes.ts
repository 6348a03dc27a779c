import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { buildAdmissionRequestBundle, RequestForm } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { apiCallOf } from '../inbox/inbox-context';
import { fieldOf, formOf, germanOf, inputOf, renderForm } from './new-request-routes';
import { newRequestTexts as t } from './new-request.texts.de';
import { DIAGNOSIS_ROWS, type NewRequestInput } from './pages/new-request.page';
import { placementOfTask, sentFormOf } from './placement-reads';
import { applies } from './placements';
import { berlinLocal } from './berlin-time';
import { hospitalApiOf, type WorkspaceContext } from './workspace-context';

/**
 * Supplementing a request (docs/workspace.md, "Anfrage ergänzen"): the new-request form, filled with
 * the request as last sent (read back: docs/api.md, "Reading a request back"), its clinics fixed; the
 * post sends the edited fields as the request's next version, with everything the form does not
 * show (names after a selection, diagnoses past the form's rows, their recorded dates) kept.
 */
export function supplementRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts } = context;
  const render = renderForm(context);

  /** The request and its latest version as the form reads it; 404 for another party's, 409 once nothing more can be sent for it. */
  const latestOf = async (req: Request, res: Response) => {
    const { placement, clinics } = await placementOfTask(context, req, res);
    if (!applies('revoke', placement)) throw new HttpError('conflict', texts.errors.badRequest);
    const [task] = placement.tasks;
    const read = await sentFormOf(context, req, res, task);
    const supplement = {
      action: `/workspace/requests/${placement.id}/supplement`,
      clinics: read.performers.map((performer) => texts.clinicOf(clinics.get(performer.ik)?.name ?? performer.name, performer.ik)),
    };
    return { placement, read, supplement };
  };

  router.get('/requests/:taskId/supplement', async (req, res) => {
    const { read, supplement } = await latestOf(req, res);
    await render(req, res, inputOfForm(read), { errors: new Map(), summary: [] }, 200, { supplement });
  });

  router.post('/requests/:taskId/supplement', async (req, res) => {
    const { placement, read, supplement } = await latestOf(req, res);
    const input = inputOf(req.body);
    const { items: registry } = await context.api.clinics(apiCallOf(req, res));
    const typed = formOf(input, { fhirBase: '', ik: read.requester.ik, name: read.requester.name ?? '' }, registry) as Record<string, unknown>;
    const parsed = RequestForm.safeParse(supplementOf(read, typed, input));
    if (!parsed.success) {
      const errors = new Map(parsed.error.issues.map((issue) => [fieldOf(issue.path), germanOf(issue.path)]));
      return render(req, res, input, { errors, summary: [...new Set(errors.values())] }, 400, { supplement });
    }
    const sent = await hospitalApiOf(context, req, res).send(buildAdmissionRequestBundle(parsed.data, { profileBase: context.profileBase }));
    if (!sent.ok) {
      const summary = sent.issues.map((issue) => `${t.refused} ${issue.diagnostics}`);
      return render(req, res, input, { errors: new Map([['form', t.refused]]), summary }, sent.status === 409 ? 409 : 400, { supplement });
    }
    res.redirect(303, `/workspace/requests/${placement.id}?supplemented=1`);
  });

  return router;
}

/** The form's fields of a request as sent: what the person edits. */
function inputOfForm(form: RequestForm): NewRequestInput {
  const text = (value: string | number | undefined) => (value === undefined ? undefined : String(value));
  const entries: [string, string | undefined][] = [
    ['patient.gender', form.patient.gender],
    ['patient.birthDate', form.patient.birthDate],
    ['patient.postalCode', form.patient.postalCode],
    ['patient.city', form.patient.city],
    ['desiredAdmissionDate', form.desiredAdmissionDate],
    ['answerDeadline', berlinLocal(form.answerDeadline)],
    ['serviceType', form.serviceType],
    ['specialty', form.specialty],
    ...form.diagnoses.slice(0, DIAGNOSIS_ROWS).flatMap((diagnosis, n): [string, string][] => [
      [`diagnoses.${n}.code`, diagnosis.code],
      [`diagnoses.${n}.text`, diagnosis.text],
    ]),
    ['weightKg', text(form.weightKg)],
    ['heightCm', text(form.heightCm)],
    ['coverage.payorIk', form.coverage?.payorIk],
    ['coverage.payorName', form.coverage?.payorName],
    ['coverage.kind', form.coverage?.kind],
    ['stay.admissionDate', form.stay?.admissionDate],
    ['stay.status', form.stay?.status],
    ['stay.dischargeDate', form.stay?.dischargeDate],
    ['stay.caseNumber', form.stay?.caseNumber],
    ['notes', form.notes?.join('\n\n')],
  ];
  return { fields: Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')), clinics: [] };
}

/** The next version: the request as sent, with the fields typed; what the form does not show stays as sent. */
function supplementOf(read: RequestForm, typed: Record<string, unknown>, input: NewRequestInput): unknown {
  const diagnoses = (typed.diagnoses as RequestForm['diagnoses']).map((diagnosis, n) => {
    const before = read.diagnoses[n];
    return before?.code === diagnosis.code && before.recordedDate ? { ...diagnosis, recordedDate: before.recordedDate } : diagnosis;
  });
  const { familyName, givenNames, streetLine, phone } = read.patient;
  const unchangedNotes = (input.fields.notes ?? '') === (read.notes ?? []).join('\n\n');
  // The field shows the deadline to the minute: left as shown, it stays exactly as sent (a deadline
  // passed already is no change, which the service would refuse as in the past).
  const unchangedDeadline = input.fields.answerDeadline === berlinLocal(read.answerDeadline);
  const answerDeadline = unchangedDeadline ? read.answerDeadline : (typed.answerDeadline as string | undefined);
  return {
    ...typed,
    ...(answerDeadline ? { answerDeadline } : {}),
    requestIdentifier: read.requestIdentifier,
    transmissionNumber: randomUUID(),
    stage: read.stage,
    requester: read.requester,
    performers: read.performers,
    patient: {
      ...(typed.patient as object),
      ...(familyName ? { familyName } : {}),
      ...(givenNames ? { givenNames } : {}),
      ...(streetLine ? { streetLine } : {}),
      ...(phone ? { phone } : {}),
    },
    diagnoses: [...diagnoses, ...read.diagnoses.slice(DIAGNOSIS_ROWS)],
    notes: unchangedNotes ? (read.notes ?? []) : typed.notes,
  };
}
