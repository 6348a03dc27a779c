import type { PathSegment } from './fhir-path';

/**
 * How many items each repeating element of a bundle may hold, so that the work per request stays
 * bounded. The spec sets none ("Limits": not shown); these are ours, each well above what a real
 * request needs, and documented in docs/api.md ("Validation choices"), the OpenAPI document and the
 * StructureDefinitions. A count over its bound is one `too-long` issue at the element; its items
 * are not looked at, and nothing else of the bundle is checked, so that the work stays bounded
 * whatever was sent.
 */
export const ITEM_BOUNDS = {
  /** AdmissionRequestBundle.entry: the ServiceRequest, the patient's resources and an Organization per performer. */
  admissionEntries: 200,
  /** DocumentBundle.entry: the Composition and up to 20 DocumentReferences. */
  documentEntries: 21,
  /** ServiceRequest.performer: the clinics asked at once. */
  performers: 100,
  /** The codings of one CodeableConcept. */
  codings: 10,
  /** The notes of one resource. */
  notes: 20,
  /** DocumentReference.content: the attachments of one document. */
  attachments: 10,
  /** Any other repeating element (extensions, identifiers, names, …). */
  other: 100,
} as const;

/**
 * What one request may hold in all (docs/api.md, "Limits per request"), by default: intake refuses
 * a supplement or a document over one with 409 and issue code `too-long` (REQUEST_MAX_VERSIONS,
 * REQUEST_MAX_DOCUMENTS, REQUEST_MAX_BYTES change them); a selection, its withdrawal and a
 * revocation are never refused for them. Bytes are those of the bundles' JSON, versions and
 * documents together.
 */
export const REQUEST_BOUNDS = {
  versions: 50,
  documents: 50,
  bytes: 64 * 1024 * 1024,
  /** The clinic's notes one Task keeps (each at most 4000 characters); an answer with a note over it is refused, one without a note is not. */
  notesPerTask: 100,
} as const;

/** The bound of the array at `path` (from the bundle: `['entry', 0, 'resource', 'performer']`) in a bundle whose entries are bounded by `entries`. */
export function itemBoundOf(path: readonly PathSegment[], entries: number): number {
  if (path.length === 1 && path[0] === 'entry') return entries;
  switch (path.at(-1)) {
    case 'performer':
      return ITEM_BOUNDS.performers;
    case 'coding':
      return ITEM_BOUNDS.codings;
    case 'note':
      return ITEM_BOUNDS.notes;
    case 'content':
      return ITEM_BOUNDS.attachments;
    default:
      return ITEM_BOUNDS.other;
  }
}
