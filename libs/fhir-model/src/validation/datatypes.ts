import { z } from 'zod';
import { claimsProfile } from '../bundle-kind';
import { quoted } from './excerpt';
import { customIssue, predicateParams } from './issues';

/** FHIR primitive and complex datatypes as the profiles use them. */

/**
 * FHIR strings are never empty (R4 datatypes: "string ... SHALL NOT be empty"). An empty one
 * aborts the refinements of its parent, which would otherwise report the same empty value again
 * (e.g. as an unknown specialty code).
 */
export const fhirString = z.string().min(1, { abort: true });

export const fhirId = z.string().regex(/^[A-Za-z0-9\-.]{1,64}$/, 'must be a FHIR id (1 to 64 letters, digits, "-" or ".")');

/** 8-4-4-4-12 hex digits in either case, any version (z.uuid() would also demand RFC 9562 version and variant bits). */
export const uuid = z.guid('must be a UUID');

/** FHIR R4 `uuid`: lower-case hex digits. */
export const URN_UUID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const urnUuid = z.string().regex(URN_UUID, "must be 'urn:uuid:' followed by a lower-case UUID");

/** RFC 3986 absolute URI: a scheme, a colon, and no white space. */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;
export const absoluteUri = z.string().regex(ABSOLUTE_URI, 'must be an absolute URI');

export function isAbsoluteUri(value: unknown): value is string {
  return typeof value === 'string' && ABSOLUTE_URI.test(value);
}

export const ikNumber = z.string().regex(/^\d{9}$/, 'must be an IK number of 9 digits');

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const DATE_AND_TIME = /^(\d{4}-\d{2}-\d{2})(T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00)))?$/;

/**
 * FHIR R4 `dateTime`: a year, year-month or date, or a date-time with seconds and a time zone
 * ("if hours and minutes are specified, a time zone SHALL be populated").
 */
export function isFhirDateTime(value: string): boolean {
  if (/^\d{4}(-(0[1-9]|1[0-2]))?$/.test(value)) return true;
  const match = DATE_AND_TIME.exec(value);
  return match !== null && isCalendarDate(match[1] ?? '');
}

export const fhirDate = z.string().refine(isCalendarDate, {
  message: 'must be a date YYYY-MM-DD',
  params: predicateParams('value'),
});

export const fhirDateTime = z.string().refine(isFhirDateTime, {
  message: 'must be a FHIR dateTime (YYYY-MM-DD, or a date-time with seconds and a time-zone offset)',
  params: predicateParams('value'),
});

/** ISO 8601 date-time with a time-zone offset (spec, AdmissionRequestBundle: `timestamp`). */
export const instantWithOffset = z.iso.datetime({
  offset: true,
  // A function, so that a missing timestamp still reads "is required".
  error: (raw) => (raw.input === undefined ? undefined : 'must be an ISO 8601 date-time with seconds and a time-zone offset'),
});

/**
 * A reference between entries. Only its presence and type are checked here; its `urn:uuid:` form
 * and its target are checked across the bundle (`references.ts`).
 */
export const reference = z.object({ reference: z.string(), display: fhirString.optional() });

export const coding = z.object({
  system: fhirString,
  version: fhirString.optional(),
  code: fhirString,
  display: fhirString.optional(),
});

export interface CodedWithOptions {
  /** The closed list of codes of `system`, if it is closed. */
  codes?: readonly string[];
  /** What the codes are, for diagnostics ("service type"). */
  label: string;
  /** A second coding of `system` would make the concept ambiguous. */
  atMostOne?: boolean;
}

/** A CodeableConcept that must carry a coding of `system` (other systems may be added as translations). */
export function codedWith(system: string, { codes, label, atMostOne = false }: CodedWithOptions) {
  return z.object({ coding: z.array(coding).min(1), text: fhirString.optional() }).superRefine((concept, ctx) => {
    const matching = concept.coding.flatMap((entry, index) => (entry.system === system ? [{ entry, index }] : []));
    if (matching.length === 0) {
      ctx.addIssue(customIssue('required', `a ${label} coding with system ${system} is required`, ['coding']));
    }
    for (const { entry, index } of matching) {
      if (codes && !codes.includes(entry.code)) {
        ctx.addIssue(customIssue('code-invalid', `${quoted(entry.code)} is not a ${label} code (allowed: ${codes.join(', ')})`, ['coding', index, 'code']));
      }
    }
    const second = matching[1];
    if (atMostOne && second) {
      const diagnostics = `only one ${label} coding with system ${system} is allowed`;
      ctx.addIssue(customIssue('invalid', diagnostics, ['coding', second.index]));
    }
  });
}

/** `Bundle.meta.profile`: a list of canonicals that includes `profile`. */
export function profilesClaiming(profile: string) {
  return z.array(z.string()).superRefine((profiles, ctx) => {
    if (!claimsProfile(profiles, profile)) ctx.addIssue(customIssue('value', `meta.profile must contain ${profile}`));
  });
}
