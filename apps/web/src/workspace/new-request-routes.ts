import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { ClinicRecord } from '@bedrequest/contracts';
import { buildAdmissionRequestBundle, RequestForm, requestIdentifierFor } from '@bedrequest/fhir-model';
import { apiCallOf, sendPage, sessionOf } from '../inbox/inbox-context';
import { draftLabelOf, draftOf, draftsRoutes } from './drafts-routes';
import { newRequestTexts as t } from './new-request.texts.de';
import { ownDataTexts } from './own-data.texts.de';
import { berlinDateTime } from './berlin-time';
import { DIAGNOSIS_ROWS, newRequestPage, type NewRequestInput, type NewRequestView } from './pages/new-request.page';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

const drafts = ownDataTexts.drafts;

/** The form's text fields, by name: all the page reads of a post. */
const FIELDS = [
  'patient.gender',
  'patient.birthDate',
  'patient.birthYearOnly',
  'patient.postalCode',
  'patient.city',
  'desiredAdmissionDate',
  'answerDeadline',
  'serviceType',
  'specialty',
  ...Array.from({ length: DIAGNOSIS_ROWS }, (_, n) => [`diagnoses.${n}.code`, `diagnoses.${n}.text`]).flat(),
  'weightKg',
  'heightCm',
  'coverage.payorIk',
  'coverage.payorName',
  'coverage.kind',
  'stay.admissionDate',
  'stay.status',
  'stay.dischargeDate',
  'stay.caseNumber',
  'notes',
  'ownCaseNumber',
] as const;

/**
 * The hospital's new request (docs/workspace.md, "Neue Anfrage"): the form, and its post, which
 * builds the AdmissionRequestBundle (`@bedrequest/fhir-model`'s request form: the identifier under
 * the party's FHIR base, the patient masked) and sends it through the public API like any referrer's
 * software. What the form's schema refuses stands at its field; what the service refuses, in the
 * summary. Nothing of the form goes into a URL.
 */
export function newRequestRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const render = renderForm(context);
  const blank = { errors: new Map<string, string>(), summary: [] };
  router.use(draftsRoutes(context));

  router.get('/requests/new', async (req, res) => {
    const id = typeof req.query.draft === 'string' ? req.query.draft : undefined;
    if (!id) return render(req, res, { fields: {}, clinics: [] }, blank);
    const draft = await draftOf(context, req, res, id);
    if (!draft) return render(req, res, { fields: {}, clinics: [] }, { errors: new Map([['form', drafts.gone]]), summary: [] }, 404);
    const notice = req.query.saved === '1' ? drafts.saved : drafts.opened(context.formats.instant(draft.savedAt) ?? draft.savedAt);
    await render(req, res, draft.input, blank, 200, { draft: { id, notice } });
  });

  router.post('/requests/new', async (req, res) => {
    const input = inputOf(req.body);
    const draftId = draftIdOf(req.body);
    const draft = draftId ? { draft: { id: draftId } } : {};
    const step = (req.body as Record<string, unknown>).step;
    // "Kliniken … anzeigen": the form again, with the clinics of the specialty and their free beds.
    if (step === 'clinics') return render(req, res, input, blank, 200, draft);
    const api = hospitalApiOf(context, req, res);
    if (step === 'draft') {
      const saved = await api.referrerData().saveDraft({ label: draftLabelOf(input, context.texts), content: input }, draftId);
      if (!saved.ok) {
        const refused = { errors: new Map([['form', drafts.notSaved]]), summary: [`${drafts.notSaved} ${saved.message}`] };
        return render(req, res, input, refused, 409, draft);
      }
      return res.redirect(303, `/workspace/requests/new?draft=${encodeURIComponent(saved.id)}&saved=1`);
    }
    const [party, { items: registry }] = await Promise.all([api.party(), context.api.clinics(apiCallOf(req, res))]);
    const form = formOf(input, { fhirBase: party.fhirBase ?? '', ik: party.ik[0] ?? '', name: party.name }, registry);
    const parsed = RequestForm.safeParse(form);
    const errors = new Map<string, string>();
    if (!input.fields.specialty) errors.set('specialty', t.fieldErrors.specialty ?? t.otherError);
    const caseNumber = input.fields.ownCaseNumber;
    if (caseNumber !== undefined && !CASE_NUMBER.test(caseNumber)) errors.set('ownCaseNumber', ownDataTexts.caseNumber.invalid);
    if (!parsed.success) for (const issue of parsed.error.issues) errors.set(fieldOf(issue.path), germanOf(issue.path));
    if (!parsed.success || errors.size > 0) return render(req, res, input, { errors, summary: [...new Set(errors.values())] }, 400, draft);
    const sent = await api.send(buildAdmissionRequestBundle(parsed.data, { profileBase: context.profileBase }));
    if (!sent.ok) {
      const summary = sent.issues.map((issue) => `${t.refused} ${issue.diagnostics}`);
      return render(req, res, input, { errors: new Map([['form', t.refused]]), summary }, sent.status === 409 ? 409 : 400, draft);
    }
    // Kept beside the request, never in the bundle: the service stores it before the request exists too.
    const kept = caseNumber === undefined || (await api.referrerData().setCaseNumber(parsed.data.requestIdentifier, caseNumber)) === undefined;
    if (draftId) await api.referrerData().deleteDraft(draftId);
    res.redirect(303, `/workspace/requests?sent=${kept ? '1' : 'without-case-number'}`);
  });

  return router;
}

/** The hospital's internal case number as the service keeps it (docs/api.md, "The hospital's own data"). */
export const CASE_NUMBER = /^[A-Za-z0-9 ./_:-]{1,64}$/;

function draftIdOf(body: unknown): string | undefined {
  const id = (body as Record<string, unknown> | undefined)?.draftId;
  return typeof id === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(id) ? id : undefined;
}

export function inputOf(body: unknown): NewRequestInput {
  const record = (body ?? {}) as Record<string, unknown>;
  const fields = Object.fromEntries(
    FIELDS.map((name) => [name, typeof record[name] === 'string' ? (record[name] as string).trim() : '']).filter(([, value]) => value !== ''),
  );
  const ticked = record.clinic;
  const clinics = (Array.isArray(ticked) ? ticked : [ticked]).filter((ik): ik is string => typeof ik === 'string' && /^\d{9}$/.test(ik));
  return { fields, clinics: [...new Set(clinics)] };
}

/** The form's fields as the request form's schema takes them; blank ones left out, so that it names what is missing. */
export function formOf(input: NewRequestInput, party: { fhirBase: string; ik: string; name: string }, registry: readonly ClinicRecord[]): unknown {
  const f = input.fields;
  const number = (name: string) => (f[name] === undefined ? undefined : Number(f[name]?.replace(',', '.')));
  const group = <K extends string>(prefix: string, keys: readonly K[]) => {
    const entries = keys.map((key) => [key, f[`${prefix}.${key}`]] as const).filter(([, value]) => value !== undefined);
    return entries.length ? Object.fromEntries(entries) : undefined;
  };
  const diagnoses = Array.from({ length: DIAGNOSIS_ROWS }, (_, n) => group(`diagnoses.${n}`, ['code', 'text'] as const)).filter((row) => row !== undefined);
  return {
    requestIdentifier: requestIdentifierFor(party.fhirBase),
    transmissionNumber: randomUUID(),
    stage: 'proposal',
    requester: { ik: party.ik, name: party.name },
    performers: input.clinics.map((ik) => ({
      ik,
      ...(registry.find((clinic) => clinic.ik === ik) ? { name: registry.find((clinic) => clinic.ik === ik)?.name } : {}),
    })),
    patient: maskedBirthDate(group('patient', ['gender', 'birthDate', 'postalCode', 'city'] as const) ?? {}, f['patient.birthYearOnly'] === 'yes'),
    ...(f.desiredAdmissionDate ? { desiredAdmissionDate: f.desiredAdmissionDate } : {}),
    // The field's Berlin wall clock as the dateTime the service takes; a malformed one goes as typed, for the schema to refuse at its field.
    ...(f.answerDeadline ? { answerDeadline: berlinDateTime(f.answerDeadline) ?? f.answerDeadline } : {}),
    ...(f.serviceType ? { serviceType: f.serviceType } : {}),
    ...(f.specialty ? { specialty: f.specialty } : {}),
    diagnoses,
    ...(f.weightKg ? { weightKg: number('weightKg') } : {}),
    ...(f.heightCm ? { heightCm: number('heightCm') } : {}),
    ...(group('coverage', ['payorIk', 'payorName', 'kind'] as const) ? { coverage: group('coverage', ['payorIk', 'payorName', 'kind'] as const) } : {}),
    ...(group('stay', ['admissionDate', 'status', 'dischargeDate', 'caseNumber'] as const)
      ? { stay: group('stay', ['admissionDate', 'status', 'dischargeDate', 'caseNumber'] as const) }
      : {}),
    notes: f.notes ? [f.notes] : [],
  };
}

/**
 * The birth date as the interface allows it for more pseudonymisation: 1 January of the year
 * (docs/workspace.md, "Neue Anfrage"), when the person asks to send the year alone.
 */
function maskedBirthDate<P extends { birthDate?: string }>(patient: P, yearOnly: boolean): P {
  const year = /^(\d{4})-\d{2}-\d{2}$/.exec(patient.birthDate ?? '')?.[1];
  return yearOnly && year ? { ...patient, birthDate: `${year}-01-01` } : patient;
}

/** The form field a schema issue stands at (`diagnoses.0.code`), or its group (`coverage`, `performers`), else the form. */
export function fieldOf(path: readonly PropertyKey[]): string {
  const name = path.map(String).join('.');
  if ((FIELDS as readonly string[]).includes(name)) return name;
  const top = String(path[0] ?? 'form');
  if (top === 'diagnoses') return 'diagnoses.0.code';
  return ['coverage', 'stay', 'performers', 'desiredAdmissionDate', 'serviceType', 'specialty', 'notes'].includes(top) ? top : 'form';
}

/** What a refused field needs, in German (new-request.texts.de.ts). */
export function germanOf(path: readonly PropertyKey[]): string {
  const name = path
    .filter((key) => typeof key !== 'number')
    .map(String)
    .join('.');
  return t.fieldErrors[name] ?? t.fieldErrors[String(path[0])] ?? t.otherError;
}

/** The registry's clinics offering the specialty (all without one), with their free beds on the date where they show them. */
export async function clinicsOffering(context: WorkspaceContext, req: Request, res: Response, specialty: string | undefined, date = '') {
  const { items } = await context.api.clinics(apiCallOf(req, res));
  const clinics = items.filter((clinic) => !specialty || clinic.departments.some((department) => department.specialty === specialty));
  const departments = new Set(
    clinics.flatMap((clinic) =>
      clinic.departments.filter((department) => !specialty || department.specialty === specialty).map((d) => `${clinic.ik}/${d.code}`),
    ),
  );
  const hospital = hospitalApiOf(context, req, res);
  const [shown, statistics] = await Promise.all([/^\d{4}-\d{2}-\d{2}$/.test(date) ? hospital.freeBeds(date) : [], hospital.answerStatistics()]);
  return {
    clinics,
    freeBeds: shown.filter((item) => departments.has(`${item.ik}/${item.department}`)),
    answerFigures: { windowDays: statistics.windowDays, items: statistics.items.filter((item) => departments.has(`${item.clinicIk}/${item.departmentCode}`)) },
  };
}

/** Shows the form with what was typed, its refusals, and the clinics of the specialty with their free beds on the desired date. */
export function renderForm(context: WorkspaceContext) {
  const { texts } = context;
  return async (
    req: Request,
    res: Response,
    input: NewRequestInput,
    refused: Pick<NewRequestView, 'errors' | 'summary'>,
    status = 200,
    extra: Pick<NewRequestView, 'supplement' | 'draft'> = {},
  ) => {
    const [{ clinics, freeBeds, answerFigures }, page, settings] = await Promise.all([
      clinicsOffering(context, req, res, input.fields.specialty, input.fields.desiredAdmissionDate),
      workspacePageOf(context, req, res),
      hospitalApiOf(context, req, res).referrerData().settings(),
    ]);
    sendPage(
      res,
      newRequestPage(page, texts, {
        input,
        ...refused,
        clinics,
        freeBeds,
        answerFigures,
        deadlineDefault: settings.answerDeadline,
        csrfToken: context.csrf.tokenOf(sessionOf(res).id),
        ...extra,
      }),
      status,
    );
  };
}
