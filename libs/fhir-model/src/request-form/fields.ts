import { z } from 'zod';
import { ADMINISTRATIVE_GENDERS } from '../codes';
import { isCalendarDate } from '../validation/datatypes';
import { says, typedText } from './messages';

/**
 * The request form's fields one by one (`schema.ts` puts them together and adds the rules across
 * them). `today` gives the German calendar day at the time of parsing, so that "not in the future"
 * means the day the person fills in the form.
 */

export type Today = () => string;

/**
 * The insurance types of `http://fhir.de/CodeSystem/versicherungsart-de-basis` (HL7 Germany's base
 * terminology), the system the spec names for `Coverage.type`: statutory and private health
 * insurance, the statutory accident insurance (Berufsgenossenschaft), self-payer, social welfare
 * office, statutory and private long-term care insurance, civil servants' allowance (Beihilfe).
 */
export const COVERAGE_KINDS = ['GKV', 'PKV', 'BG', 'SEL', 'SOZ', 'GPV', 'PPV', 'BEI'] as const;
export type CoverageKind = (typeof COVERAGE_KINDS)[number];

/** Where the patient is now: still in the referring hospital, or discharged from it. */
export const STAY_STATUSES = ['in-house', 'discharged'] as const;

/**
 * An ICD-10-GM code as coders write it: a capital letter, two digits, optionally a dot and one or
 * two digits (`S72`, `S72.0`, `S72.01`), and optionally one of ICD-10-GM's marks: `†` (the
 * cause, dagger), `*` (its manifestation, asterisk), `!` (an additional code that never stands
 * alone), or `+`, the dagger as many German hospital systems transmit it. Nothing else: no spaces,
 * lower-case letters, the placeholder `-` of the catalogue's headings (`S72.-`), or the diagnostic
 * certainty and side (`G`, `V`, `Z`, `A`, `R`, `L`, `B`), which are not part of the code. Whether
 * the code exists in the year's catalogue is not checked.
 */
export const ICD10GM_CODE = /^[A-Z]\d{2}(?:\.\d{1,2})?[†*!+]?$/;

/** Bounds of the form (the service's own limits are in docs/api.md, "Validation choices"). */
export const REQUEST_FORM_BOUNDS = {
  performers: 100,
  diagnoses: 50,
  notes: 20,
  noteLength: 4000,
  nameLength: 200,
  givenNames: 10,
  diagnosisTextLength: 500,
  weightKg: { min: 0.3, max: 500 },
  heightCm: { min: 20, max: 260 },
  earliestBirthDate: '1900-01-01',
} as const;

export const ikNumber = z.string(says('must be text')).regex(/^\d{9}$/, says('must be an IK number of 9 digits'));

/** A calendar day `YYYY-MM-DD`. */
export const calendarDate = z.string(says('must be text')).refine(isCalendarDate, says('must be a date YYYY-MM-DD'));

/** A calendar day that is today or earlier. */
export function pastDate(today: Today) {
  return calendarDate.refine((date) => date <= today(), says('must not be in the future'));
}

/**
 * Full date only: FHIR allows a year alone, but the service requires `Patient.birthDate` as
 * YYYY-MM-DD (docs/api.md, "Validation choices"); a form that offers the year alone sends 1 January
 * of it, as the interface allows for more pseudonymisation.
 */
export function birthDate(today: Today) {
  return z
    .string(says('must be text'))
    .refine((date) => !/^\d{4}$/.test(date), says('must be a full date YYYY-MM-DD: the service does not accept a year alone'))
    .refine(isCalendarDate, says('must be a date YYYY-MM-DD'))
    .refine((date) => date <= today(), says('must not be in the future'))
    .refine((date) => date >= REQUEST_FORM_BOUNDS.earliestBirthDate, says(`must not be before ${REQUEST_FORM_BOUNDS.earliestBirthDate}`));
}

/** An absolute http(s) address without white space, as the inbox links to it. */
export const webAddress = z
  .string(says('must be text'))
  .max(2048, says('must be at most 2048 characters long'))
  .regex(/^https?:\/\/[\x21-\x7e]+$/, says("must be an absolute web address beginning with 'https://' or 'http://', without spaces"));

const TRANSMISSION_NUMBER = /^[\x21-\x7e]{1,64}$/;
export const transmissionNumber = z.string(says('must be text')).regex(TRANSMISSION_NUMBER, says('must be 1 to 64 printable ASCII characters without spaces'));

/** `<fhir base>/ServiceRequest/<id>`: the referrer's FHIR base must begin it (the gateway checks which base). */
const REQUEST_IDENTIFIER = /^https?:\/\/[\x21-\x7e]+\/ServiceRequest\/[A-Za-z0-9\-.]{1,64}$/;
export const requestIdentifier = z
  .string(says('must be text'))
  .max(2048, says('must be at most 2048 characters long'))
  .regex(REQUEST_IDENTIFIER, says("must be '<FHIR base URL>/ServiceRequest/<id>' (printable ASCII, no spaces), e.g. made by requestIdentifierFor"));

export const organization = z.strictObject({ ik: ikNumber, name: typedText(REQUEST_FORM_BOUNDS.nameLength).optional() }, says('must be an object'));

export const performer = z.strictObject(
  { ik: ikNumber, name: typedText(REQUEST_FORM_BOUNDS.nameLength).optional(), deepLink: webAddress.optional() },
  says('must be an object'),
);

const POSTAL_CODE = /^[A-Za-z0-9][A-Za-z0-9 -]{1,8}[A-Za-z0-9]$/;
const PHONE = /^\+?[0-9][0-9 ()/-]{2,29}$/;

export function patient(today: Today) {
  return z.strictObject(
    {
      gender: z.enum(ADMINISTRATIVE_GENDERS, says(`must be one of ${ADMINISTRATIVE_GENDERS.join(', ')}`)),
      birthDate: birthDate(today),
      postalCode: z.string(says('must be text')).regex(POSTAL_CODE, says('must be a postal code of 3 to 10 letters, digits, spaces or hyphens')),
      city: typedText(100),
      familyName: typedText(REQUEST_FORM_BOUNDS.nameLength).optional(),
      givenNames: z
        .array(typedText(REQUEST_FORM_BOUNDS.nameLength), says('must be a list'))
        .max(REQUEST_FORM_BOUNDS.givenNames, says(`must hold at most ${REQUEST_FORM_BOUNDS.givenNames} names`))
        .optional(),
      streetLine: typedText(REQUEST_FORM_BOUNDS.nameLength).optional(),
      phone: z
        .string(says('must be text'))
        .regex(PHONE, says("must be a telephone number: digits, optionally a leading '+', spaces, '/', '-' and brackets (3 to 30 characters)"))
        .optional(),
    },
    says('must be an object'),
  );
}

export function diagnosis(today: Today) {
  return z.strictObject(
    {
      code: z
        .string(says('must be text'))
        .regex(ICD10GM_CODE, says("must be an ICD-10-GM code: a capital letter, two digits, optionally '.' and one or two digits, optionally one of † * ! +")),
      text: typedText(REQUEST_FORM_BOUNDS.diagnosisTextLength),
      recordedDate: pastDate(today).optional(),
    },
    says('must be an object'),
  );
}

export const coverage = z.strictObject(
  {
    payorIk: ikNumber,
    payorName: typedText(REQUEST_FORM_BOUNDS.nameLength),
    kind: z.enum(COVERAGE_KINDS, says(`must be one of ${COVERAGE_KINDS.join(', ')}`)),
  },
  says('must be an object'),
);

const CASE_NUMBER = /^[A-Za-z0-9][A-Za-z0-9 ./_-]{0,63}$/;

export function stay(today: Today) {
  return z.strictObject(
    {
      admissionDate: pastDate(today),
      status: z.enum(STAY_STATUSES, says(`must be one of ${STAY_STATUSES.join(', ')}`)),
      dischargeDate: pastDate(today).optional(),
      /** The visit number the clinic sees as the referrer's case number, not the hospital's internal one. */
      caseNumber: z
        .string(says('must be text'))
        .regex(CASE_NUMBER, says("must be 1 to 64 letters, digits, spaces, '.', '/', '_' or '-', beginning with a letter or digit"))
        .optional(),
    },
    says('must be an object'),
  );
}

export function measurement({ min, max }: { min: number; max: number }) {
  return z
    .number(says('must be a number'))
    .refine(Number.isFinite, says('must be a number'))
    .refine((value) => value >= min && value <= max, says(`must be between ${min} and ${max}`));
}
