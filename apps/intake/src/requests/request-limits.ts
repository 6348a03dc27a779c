import type { IntakeVerdictV1 } from '@bedrequest/contracts';
import { REQUEST_BOUNDS } from '@bedrequest/fhir-model';
import type { StoredRequest } from './request-records';
import { rejected } from './verdicts';

/**
 * What one request may hold (docs/api.md, "Limits per request"), so that what a referrer sends
 * cannot make every read of the request cost more and more: its versions, its documents, and the
 * bytes of both (each bundle's canonical JSON). A limit refuses a supplement or a document; it
 * never refuses a selection, its withdrawal or a revocation, which a referrer must always be able
 * to send (they add a version each, but the state machine bounds how often they can come: a
 * selection needs a clinic's acceptance, which needs a supplement to ask again).
 */
export interface RequestLimits {
  versions: number;
  documents: number;
  bytes: number;
  /** The clinic's notes on one Task (each answer may add one): a clinic's note over it is refused, its answer without a note is not. */
  notes?: number;
}

export const DEFAULT_REQUEST_LIMITS: Required<RequestLimits> = {
  versions: REQUEST_BOUNDS.versions,
  documents: REQUEST_BOUNDS.documents,
  bytes: REQUEST_BOUNDS.bytes,
  notes: REQUEST_BOUNDS.notesPerTask,
};

/** What a request holds, as stored and as the batch has added to it. */
export interface RequestHoldings {
  versions: number;
  documents: number;
  bytes: number;
}

/** What the request holds: its versions, documents and bytes. */
export function holdingsOf(request: StoredRequest): RequestHoldings {
  return { versions: request.currentVersion, documents: request.documentCount, bytes: request.storedBytes };
}

/** The refusal of one more version or document of `bytes`, or undefined when it fits. */
export function overLimit(limits: RequestLimits, holds: RequestHoldings, adding: { kind: 'version' | 'document'; bytes: number }): IntakeVerdictV1 | undefined {
  if (adding.kind === 'version' && holds.versions >= limits.versions) {
    return tooLong(`the request has ${holds.versions} versions, the limit of ${limits.versions}: no further supplement is accepted`);
  }
  if (adding.kind === 'document' && holds.documents >= limits.documents) {
    return tooLong(`the request has ${holds.documents} documents, the limit of ${limits.documents}: no further document is accepted`);
  }
  if (holds.bytes + adding.bytes > limits.bytes) {
    return tooLong(
      `the request holds ${holds.bytes} bytes of bundles and documents; this ${adding.kind === 'version' ? 'supplement' : 'document'} of ${adding.bytes} bytes would exceed the limit of ${limits.bytes} bytes`,
    );
  }
  return undefined;
}

/** The refusal of a clinic's note on a Task that holds `notes` already, or undefined when it fits. */
export function overNotesLimit(limits: RequestLimits, notes: number): IntakeVerdictV1 | undefined {
  const limit = limits.notes ?? DEFAULT_REQUEST_LIMITS.notes;
  if (notes < limit) return undefined;
  return rejected('conflict', 'too-long', `the Task holds ${notes} notes, the limit of ${limit}: answer without a note`);
}

const tooLong = (diagnostics: string): IntakeVerdictV1 =>
  rejected('conflict', 'too-long', `${diagnostics} (a selection, its withdrawal and a revocation are still accepted)`);
