import type { Bundle } from '@medplum/fhirtypes';
import type { Issue } from './outcome';
import { documentSchemas, type DocumentSchemas, requestIdentifierOf } from './validation/document.schema';
import { entriesOf, checkUniqueFullUrls, type EntryView } from './validation/entries';
import { quoted } from './validation/excerpt';
import type { PathSegment } from './validation/fhir-path';
import { fromZodIssues, issue, parseOptions } from './validation/issues';
import { inspectJson } from './validation/json-guard';
import { ITEM_BOUNDS, itemBoundOf } from './validation/bounds';
import { inspectR4Structure } from './validation/r4-structure';
import { isRecord } from './validation/raw';
import { capIssues, notReportedYet, type ValidationOptions, type ValidationResult } from './validation/result';

/** What later stages need from a valid DocumentBundle. */
export interface DocumentBundle {
  /** The ServiceRequest identifier every DocumentReference names: the request the documents belong to. */
  requestIdentifier: string;
  documentCount: number;
  /** The bundle as received. */
  bundle: Bundle;
}

/** Validates a POSTed DocumentBundle (docs/decisions.md, "Requests") and reports every problem. Never throws. */
export function validateDocumentBundle(input: unknown, options: ValidationOptions): ValidationResult<DocumentBundle> {
  try {
    return validate(input, documentSchemas(options.profileBase));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [issue('exception', `the bundle could not be validated: ${reason}`)] };
  }
}

/** Attachments are the one place where a string may be long: the 10 MiB body limit bounds them. */
const isAttachmentData = (path: readonly PathSegment[]) => path.at(-1) === 'data' && path.at(-2) === 'attachment';

function validate(input: unknown, schemas: DocumentSchemas): ValidationResult<DocumentBundle> {
  if (!isRecord(input)) return { ok: false, issues: [issue('structure', 'a DocumentBundle must be a JSON object')] };

  const { issues, omitted, overBound } = inspectJson(input, {
    allowsLongString: isAttachmentData,
    maxItems: (path) => itemBoundOf(path, ITEM_BOUNDS.documentEntries),
  });
  if (overBound) return { ok: false, issues: capIssues(issues, omitted) };
  const structure = inspectR4Structure(input);
  const envelope = schemas.bundle.safeParse(input, parseOptions);
  if (!envelope.success) issues.push(...fromZodIssues(envelope.error.issues));

  const requestIdentifiers: { entry: EntryView; requestIdentifier: string | undefined }[] = [];
  if (Array.isArray(input['entry'])) {
    const entries = entriesOf(input);
    issues.push(...checkUniqueFullUrls(entries), ...checkCompositionFirst(entries), ...checkResourceTypes(entries));
    for (const entry of entries.filter((candidate) => candidate.resourceType === 'DocumentReference')) {
      const result = schemas.documentReference.safeParse(entry.resource, parseOptions);
      if (!result.success) issues.push(...fromZodIssues(result.error.issues, ['entry', entry.index, 'resource']));
      const named = result.data?.context.related.map(requestIdentifierOf).find((value) => value !== undefined);
      requestIdentifiers.push({ entry, requestIdentifier: named });
    }
    if (requestIdentifiers.length === 0) {
      issues.push(issue('required', 'at least one DocumentReference entry is required', ['entry']));
    }
    issues.push(...checkOneRequest(requestIdentifiers));
  }
  issues.push(...notReportedYet(structure.issues, issues));
  const requestIdentifier = requestIdentifiers[0]?.requestIdentifier;
  if (issues.length > 0 || !requestIdentifier) return { ok: false, issues: capIssues(issues, omitted + structure.omitted) };
  return {
    ok: true,
    bundle: { requestIdentifier, documentCount: requestIdentifiers.length, bundle: input as unknown as Bundle },
  };
}

/** A FHIR document starts with its Composition (FHIR R4 bdl-11; docs/decisions.md "a Composition first"). */
function checkCompositionFirst(entries: readonly EntryView[]): Issue[] {
  const first = entries[0];
  if (!first || first.resourceType === undefined || first.resourceType === 'Composition') return [];
  const diagnostics = `the first entry of a document must be its Composition, not ${quoted(first.resourceType)}`;
  return [issue('invalid', diagnostics, ['entry', 0, 'resource', 'resourceType'])];
}

/**
 * A DocumentBundle carries its Composition and the DocumentReferences (docs/decisions.md, "Requests");
 * any other resource would be stored and passed to the clinics unchecked.
 */
const DOCUMENT_RESOURCE_TYPES: readonly string[] = ['Composition', 'DocumentReference'];

function checkResourceTypes(entries: readonly EntryView[]): Issue[] {
  return entries
    .filter(({ resourceType }) => resourceType !== undefined && resourceType !== '' && !DOCUMENT_RESOURCE_TYPES.includes(resourceType))
    .map(({ index, resourceType }) => {
      const diagnostics = `resourceType ${quoted(resourceType)} is not allowed here (allowed: ${DOCUMENT_RESOURCE_TYPES.join(', ')})`;
      return issue('code-invalid', diagnostics, ['entry', index, 'resource', 'resourceType']);
    });
}

/** All documents of one bundle belong to the same request. */
function checkOneRequest(named: readonly { entry: EntryView; requestIdentifier: string | undefined }[]): Issue[] {
  const first = named.find((item) => item.requestIdentifier !== undefined);
  return named
    .filter((item) => item.requestIdentifier !== undefined && item.requestIdentifier !== first?.requestIdentifier)
    .map((item) =>
      issue('invalid', `all DocumentReferences must name the same ServiceRequest identifier (${quoted(first?.requestIdentifier)})`, [
        'entry',
        item.entry.index,
        'resource',
        'context',
        'related',
      ]),
    );
}
