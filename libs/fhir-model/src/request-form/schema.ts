import { z } from 'zod';
import { SERVICE_TYPE_CODES } from '../codes';
import { findSpecialty, SPECIALTIES, type SpecialtyCode } from '../specialties';
import {
  calendarDate,
  coverage,
  diagnosis,
  measurement,
  organization,
  patient,
  performer,
  REQUEST_FORM_BOUNDS,
  requestIdentifier,
  stay,
  type Today,
  transmissionNumber,
} from './fields';
import { fieldPath, germanDate, says, typedText } from './messages';

/**
 * The stages a person creates a request in (spec, "States and transitions"; docs/decisions.md,
 * "Requests"): a `proposal` asks one or more clinics with the patient pseudonymised; a `selection`
 * (`intent: order`, orderDetail `selected-provider`) names the one clinic chosen, which had
 * accepted, and carries the complete master data. Withdrawing a selection and revoking a request
 * are not this form's.
 */
export const REQUEST_FORM_STAGES = ['proposal', 'selection'] as const;
export type RequestFormStage = (typeof REQUEST_FORM_STAGES)[number];

const SPECIALTY_CODES = SPECIALTIES.map((row) => row.code) as [SpecialtyCode, ...SpecialtyCode[]];

/** The patient's fields that a proposal leaves out (docs/api.md, "Validation choices": a masked patient carries none of them). */
const IDENTIFYING_FIELDS = ['familyName', 'givenNames', 'streetLine', 'phone'] as const;

export interface RequestFormSchemaOptions {
  /** The current time; the German calendar day of it bounds the dates that must not be in the future. Default: the clock. */
  now?: () => Date;
}

/**
 * The fields of the request form, from which `buildAdmissionRequestBundle` makes a bundle the
 * service accepts. Every error message begins with the path of its field (`diagnoses[0].code`).
 */
export function requestFormSchema({ now = () => new Date() }: RequestFormSchemaOptions = {}) {
  const today: Today = () => germanDate(now());
  return z
    .strictObject(
      {
        requestIdentifier,
        transmissionNumber,
        stage: z.enum(REQUEST_FORM_STAGES, says(`must be one of ${REQUEST_FORM_STAGES.join(', ')}`)),
        requester: organization,
        performers: z
          .array(performer, says('must be a list'))
          .min(1, says('must name at least one clinic'))
          .max(REQUEST_FORM_BOUNDS.performers, says(`must name at most ${REQUEST_FORM_BOUNDS.performers} clinics`)),
        patient: patient(today),
        desiredAdmissionDate: calendarDate,
        /**
         * By when the clinics' answers are needed (docs/api.md, "Answer deadlines"): a date-time with
         * seconds and an offset, sent as the ServiceRequest's answer-deadline extension; absent, the
         * service sets the party's default on a new request and keeps the deadline on an update.
         */
        answerDeadline: z
          .string(says('must be text'))
          .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/, says('must be a date-time with seconds and a time-zone offset'))
          .optional(),
        serviceType: z.enum(SERVICE_TYPE_CODES, says(`must be one of ${SERVICE_TYPE_CODES.join(', ')}`)),
        specialty: z.enum(SPECIALTY_CODES, says(`must be one of ${SPECIALTY_CODES.join(', ')}`)).optional(),
        departmentKey: z
          .string(says('must be text'))
          .regex(/^\d{4}$/, says('must be a department key of 4 digits'))
          .optional(),
        diagnoses: z
          .array(diagnosis(today), says('must be a list'))
          .min(1, says('must hold at least one diagnosis (the first is the main diagnosis)'))
          .max(REQUEST_FORM_BOUNDS.diagnoses, says(`must hold at most ${REQUEST_FORM_BOUNDS.diagnoses} diagnoses`)),
        weightKg: measurement(REQUEST_FORM_BOUNDS.weightKg).optional(),
        heightCm: measurement(REQUEST_FORM_BOUNDS.heightCm).optional(),
        coverage: coverage.optional(),
        stay: stay(today).optional(),
        notes: z
          .array(typedText(REQUEST_FORM_BOUNDS.noteLength, { multiline: true }), says('must be a list'))
          .max(REQUEST_FORM_BOUNDS.notes, says(`must hold at most ${REQUEST_FORM_BOUNDS.notes} notes`))
          .optional(),
      },
      says('must be an object'),
    )
    .superRefine((form, ctx) => {
      const refuse = (path: (string | number)[], text: string) => ctx.addIssue({ code: 'custom', path, message: `${fieldPath(path)} ${text}` });
      checkDepartment(form, refuse);
      checkStage(form, refuse);
      checkDistinct(
        form.performers,
        (item) => item.ik,
        (index) => refuse(['performers', index, 'ik'], 'names a clinic already named: each clinic once'),
      );
      checkDistinct(
        form.diagnoses,
        (item) => item.code,
        (index) => refuse(['diagnoses', index, 'code'], 'repeats a diagnosis already given'),
      );
      checkStay(form.stay, refuse);
    });
}

/** The form as the page sends it; parse it with `RequestForm` before building a bundle. */
export const RequestForm = requestFormSchema();
export type RequestForm = z.infer<typeof RequestForm>;

type Refuse = (path: (string | number)[], text: string) => void;

/**
 * `performerType` (spec, ServiceRequest; docs/decisions.md, "Requests"): a specialty, a department
 * key, or both. The service lets the specialty win when the two disagree; a person who typed both
 * means both, so a disagreement is asked about instead.
 */
function checkDepartment(form: Pick<RequestForm, 'specialty' | 'departmentKey'>, refuse: Refuse): void {
  if (!form.specialty && !form.departmentKey) {
    refuse(['specialty'], 'or departmentKey is required: give a specialty, a department key or both');
    return;
  }
  const department = form.specialty ? findSpecialty(form.specialty)?.department : undefined;
  if (department && form.departmentKey && department !== form.departmentKey) {
    refuse(['departmentKey'], `${form.departmentKey} is not the department key of specialty ${form.specialty} (${department})`);
  }
}

/**
 * A proposal pseudonymises the patient: no name, street or telephone. A selection names exactly one
 * clinic and carries the complete master data, of which the service requires the family name
 * (docs/decisions.md, "Requests").
 */
function checkStage(form: Pick<RequestForm, 'stage' | 'performers' | 'patient'>, refuse: Refuse): void {
  if (form.stage === 'proposal') {
    for (const field of IDENTIFYING_FIELDS) {
      if (form.patient[field] !== undefined) {
        refuse(['patient', field], 'must be left out of a proposal: the patient stays pseudonymised until a clinic is selected');
      }
    }
    return;
  }
  if (form.performers.length !== 1) {
    refuse(['performers'], `must name exactly one clinic, the selected one, in a selection (found ${form.performers.length})`);
  }
  if (form.patient.familyName === undefined) {
    refuse(['patient', 'familyName'], 'is required in a selection: the selected clinic receives the complete master data');
  }
}

function checkDistinct<T>(items: readonly T[], key: (item: T) => string, refuse: (index: number) => void): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(key(item))) refuse(index);
    seen.add(key(item));
  });
}

function checkStay(stayed: RequestForm['stay'], refuse: Refuse): void {
  if (!stayed) return;
  if (stayed.status === 'discharged' && stayed.dischargeDate === undefined) refuse(['stay', 'dischargeDate'], 'is required when the patient was discharged');
  if (stayed.status === 'in-house' && stayed.dischargeDate !== undefined) {
    refuse(['stay', 'dischargeDate'], "must be left out while the patient is still in the hospital (status 'in-house')");
  }
  if (stayed.dischargeDate !== undefined && stayed.dischargeDate < stayed.admissionDate) {
    refuse(['stay', 'dischargeDate'], 'must not be before stay.admissionDate');
  }
}
