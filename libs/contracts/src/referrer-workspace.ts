import { z } from 'zod';
import { PostalCode } from './messages/clinic-registry-changed';
import { IkNumber } from './messages/ik-number';

/**
 * The hospital's own data about its requests, kept by intake beside them and never sent to a clinic
 * (docs/api.md, "The hospital's own data: case numbers and drafts"): its case number per request
 * ("Fallnummer"), and drafts of new requests whose content its web app owns. The gateway's
 * `/api/v1/referrer/…` paths (referrer tokens only), answered by intake's `/internal/referrer-workspace/…`.
 */

/** A case number: 1 to 64 characters after trimming. */
export const MAX_CASE_NUMBER_CHARACTERS = 64;
/** The identifiers one `POST /api/v1/referrer/case-numbers/_search` asks about. */
export const MAX_CASE_NUMBER_SEARCH_IDENTIFIERS = 500;
/** A ServiceRequest identifier as this API takes it: 1 to 1024 characters. */
export const MAX_REQUEST_IDENTIFIER_CHARACTERS = 1024;
/** The drafts one party keeps: a new one over them is refused (409). */
export const MAX_REFERRER_DRAFTS = 100;
/** A draft's content, serialized as JSON: 256 KiB (UTF-8 bytes). */
export const MAX_DRAFT_CONTENT_BYTES = 256 * 1024;
/** A draft's label: at most 200 characters. */
export const MAX_DRAFT_LABEL_CHARACTERS = 200;

const RequestIdentifier = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_REQUEST_IDENTIFIER_CHARACTERS, `must be at most ${MAX_REQUEST_IDENTIFIER_CHARACTERS} characters`)
  // A URI (RFC 3986) is printable ASCII, as a bundle's identifier must be.
  .regex(/^[\x21-\x7e]+$/, 'must be a URI: printable ASCII without spaces')
  .describe('The ServiceRequest.identifier value (system urn:ietf:rfc:3986) of the request, sent or about to be');

/** Letters and digits of any script, space and `. - / _ :`: what hospital systems print as a case number. */
const CASE_NUMBER = /^[\p{L}\p{N} ./_:-]*$/u;

export const CaseNumber = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_CASE_NUMBER_CHARACTERS, `must be at most ${MAX_CASE_NUMBER_CHARACTERS} characters`)
  .regex(CASE_NUMBER, 'must be letters, digits, spaces and . - / _ : only')
  .describe('The hospital\'s case number ("Fallnummer"), trimmed');

/** `PUT /api/v1/referrer/case-numbers`: sets the request's case number, or removes it (`null`). */
export const CaseNumberInput = z.strictObject({
  identifier: RequestIdentifier,
  caseNumber: CaseNumber.nullable().describe('The case number, or null to remove it'),
});
export type CaseNumberInput = z.infer<typeof CaseNumberInput>;

/** A request's case number as stored, and who set it last. */
export const CaseNumberView = z.object({
  identifier: z.string(),
  caseNumber: z.string().nullable().describe('null: none (removed, or never set)'),
  updatedAt: z.iso.datetime(),
  updatedByName: z.string().optional().describe('The display name of the person who set it last, where their token named one'),
});
export type CaseNumberView = z.infer<typeof CaseNumberView>;

/**
 * `POST /api/v1/referrer/case-numbers/_search`: exactly one of a case number (matched exactly after
 * trimming, ignoring case) or the requests' identifiers. A POST, so that a case number, which names
 * a patient's stay, never stands in a URL or an access log.
 */
export const CaseNumberSearch = z.union([
  z.strictObject({ caseNumber: CaseNumber }),
  z.strictObject({
    identifiers: z
      .array(RequestIdentifier)
      .min(1, 'must name at least one identifier')
      .max(MAX_CASE_NUMBER_SEARCH_IDENTIFIERS, `must name at most ${MAX_CASE_NUMBER_SEARCH_IDENTIFIERS} identifiers`),
  }),
]);
export type CaseNumberSearch = z.infer<typeof CaseNumberSearch>;

export const CaseNumberList = z.object({
  items: z.array(CaseNumberView.extend({ caseNumber: z.string() })).describe("The party's case numbers found, by identifier"),
});
export type CaseNumberList = z.infer<typeof CaseNumberList>;

const DraftLabel = z
  .string()
  .max(MAX_DRAFT_LABEL_CHARACTERS, `must be at most ${MAX_DRAFT_LABEL_CHARACTERS} characters`)
  .describe('A name for the draft, as its author wrote it');

/** A draft's content: any JSON object (the web app's form state), at most MAX_DRAFT_CONTENT_BYTES serialized. */
const DraftContent = z
  .record(z.string(), z.unknown())
  .refine((content) => new TextEncoder().encode(JSON.stringify(content)).length <= MAX_DRAFT_CONTENT_BYTES, {
    message: `must be at most ${MAX_DRAFT_CONTENT_BYTES / 1024} KiB as JSON`,
  })
  .describe('The draft: a JSON object the web app owns, stored as it is (sealed)');

/** `POST /api/v1/referrer/drafts` and `PUT /api/v1/referrer/drafts/{id}`. */
export const DraftInput = z.strictObject({
  label: DraftLabel.optional(),
  content: DraftContent,
});
export type DraftInput = z.infer<typeof DraftInput>;

/** A draft in the list: without its content. */
export const DraftSummary = z.object({
  id: z.uuid(),
  label: z.string().optional(),
  savedAt: z.iso.datetime().describe('When it was saved last'),
  savedByName: z.string().optional().describe('The display name of the person who saved it last, where their token named one'),
});
export type DraftSummary = z.infer<typeof DraftSummary>;

/** A draft with its content. */
export const DraftView = DraftSummary.extend({ content: z.record(z.string(), z.unknown()) });
export type DraftView = z.infer<typeof DraftView>;

/** `GET /api/v1/referrer/drafts`: the party's drafts, saved last first. */
export const DraftList = z.object({ items: z.array(DraftSummary) });
export type DraftList = z.infer<typeof DraftList>;

/** Where the answer deadline's public holidays are those of: Germany's nationwide ones (`DE`), or a state's (ISO 3166-2). */
export const HOLIDAY_REGIONS = [
  'DE',
  'DE-BB',
  'DE-BE',
  'DE-BW',
  'DE-BY',
  'DE-HB',
  'DE-HE',
  'DE-HH',
  'DE-MV',
  'DE-NI',
  'DE-NW',
  'DE-RP',
  'DE-SH',
  'DE-SL',
  'DE-SN',
  'DE-ST',
  'DE-TH',
] as const;
export const HolidayRegion = z.enum(HOLIDAY_REGIONS);
export type HolidayRegion = z.infer<typeof HolidayRegion>;

/** At most this many clinics in a party's own list: more than a region has rehabilitation clinics of one department. */
export const MAX_ESCALATION_CLINICS = 50;

/**
 * The party's rule for asking further clinics after a request's deadline (docs/api.md, "Answer
 * deadlines", "Asking by rule"): when fewer than `whenOpenBelow` clinics are still open, the next
 * `askNext` clinics are asked, from `clinics` in its order, else from the registry nearest to `origin`.
 */
export const EscalationRule = z.strictObject({
  whenOpenBelow: z.number().int().min(1).max(10).describe('Asks when fewer than this many clinics are still open'),
  askNext: z.number().int().min(1).max(10).describe('How many clinics one step asks'),
  clinics: z
    .array(IkNumber)
    .max(MAX_ESCALATION_CLINICS)
    .refine((iks) => new Set(iks).size === iks.length, 'each IK number at most once')
    .optional()
    .describe("The party's own clinics in order of preference, asked before the registry's"),
  origin: z
    .strictObject({
      postalCode: PostalCode.describe("The patients' postal code area"),
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
    })
    .describe('The point of that area (WGS 84) that "nearest" is measured from; the service has no geocoding, the rule gives it'),
});
export type EscalationRule = z.infer<typeof EscalationRule>;

/**
 * `GET|PUT /api/v1/referrer/settings` (docs/api.md, "Answer deadlines"): the party's default answer
 * deadline, `workingDays` working days after intake received a new request that names none.
 */
export const ReferrerSettings = z.strictObject({
  answerDeadline: z.strictObject({
    workingDays: z.number().int().min(1).max(10).describe('Working days in Europe/Berlin after receipt, at the same clock time'),
    holidays: HolidayRegion.describe(
      'Whose public holidays are no working days besides Saturdays and Sundays: `DE` the nationwide ones, `DE-BW` … those of a German state (ISO 3166-2)',
    ),
  }),
  escalation: EscalationRule.nullable()
    .optional()
    .describe('The rule that asks further clinics after the deadline; `null`: none. Absent on PUT: the stored rule stays'),
});
export type ReferrerSettings = z.infer<typeof ReferrerSettings>;
