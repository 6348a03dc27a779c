import { randomUUID } from 'node:crypto';
import type { Bundle, Composition, DocumentReference } from '@medplum/fhirtypes';
import { fhirSystems, URI_IDENTIFIER_SYSTEM } from './systems';
import { ITEM_BOUNDS } from './validation/bounds';

/** docs/decisions.md, "Requests" (limits): a bundle over 10 MiB is refused with 413 (the gateway's `MAX_BUNDLE_BYTES`). */
export const DOCUMENT_BUNDLE_MAX_BYTES = 10 * 1024 * 1024;

/** The DocumentReferences of one DocumentBundle: its entries less the Composition (docs/api.md, "Validation choices"). */
export const DOCUMENTS_PER_BUNDLE = ITEM_BOUNDS.documentEntries - 1;

/** A document's title (what it is: "Arztbrief"), in characters: what a person types, far below the 10,000 of any string. */
export const DOCUMENT_TITLE_MAX_LENGTH = 100;

/** The author's name, in characters: a party's name. */
const AUTHOR_MAX_LENGTH = 200;

/** A request identifier, in characters (docs/api.md, "Validation choices"). */
const REQUEST_IDENTIFIER_MAX_LENGTH = 2048;

export interface OutgoingDocument {
  /** What the document is ("Arztbrief"): the DocumentReference's type and the attachment's title. */
  title: string;
  contentType: string;
  content: Buffer;
}

export interface BuildDocumentBundleOptions {
  /** `{profile_base}` of the profile (docs/decisions.md, "Placeholders": `PROFILE_BASE`). */
  profileBase: string;
  /** The ServiceRequest identifier every DocumentReference names. */
  requestIdentifier: string;
  /** Who sends them: the Composition's author. */
  author: string;
  /** The Composition's and the bundle's time. Default: now. */
  now?: Date;
}

/**
 * A DocumentBundle (docs/api.md, "Sending a bundle"; docs/decisions.md, "Requests"): the Composition
 * first (status, type, date, author, title, a section naming each document), then a DocumentReference
 * per document with its content as one base64 attachment, each naming the request's identifier.
 */
export function buildDocumentBundle(documents: readonly OutgoingDocument[], options: BuildDocumentBundleOptions): Bundle {
  const systems = fhirSystems(options.profileBase);
  const timestamp = (options.now ?? new Date()).toISOString();
  const references: DocumentReference[] = documents.map((document) => ({
    resourceType: 'DocumentReference',
    id: randomUUID(),
    status: 'current',
    type: { text: document.title },
    date: timestamp,
    content: [{ attachment: { contentType: document.contentType, data: document.content.toString('base64'), title: document.title } }],
    context: { related: [{ identifier: { system: URI_IDENTIFIER_SYSTEM, value: options.requestIdentifier } }] },
  }));
  const composition: Composition = {
    resourceType: 'Composition',
    id: randomUUID(),
    status: 'final',
    type: { text: 'Unterlagen zur Aufnahmeanfrage' },
    date: timestamp,
    author: [{ display: options.author }],
    title: [...new Set(documents.map((document) => document.title))].join(', '),
    section: [{ entry: references.map((reference) => ({ reference: `urn:uuid:${reference.id}` })) }],
  };
  return {
    resourceType: 'Bundle',
    id: randomUUID(),
    meta: { profile: [systems.documentBundleProfile] },
    identifier: { system: URI_IDENTIFIER_SYSTEM, value: `urn:uuid:${randomUUID()}` },
    type: 'document',
    timestamp,
    entry: [composition, ...references].map((resource) => ({ fullUrl: `urn:uuid:${resource.id}`, resource })),
  };
}

/**
 * How many bytes of documents one DocumentBundle holds, all together: the 10 MiB less the JSON around
 * them (measured on the largest such bundle: every document, the longest titles in three-byte UTF-8
 * characters, the longest identifier and author), then three bytes per four base64 characters (each document's
 * four characters of padding counted in the frame). Titles hold no control characters (JSON would
 * escape them into six bytes). About 7.5 MiB.
 */
export function documentBundleCapacity(profileBase: string): number {
  // Distinct titles (the Composition's title names each once), each character three bytes in UTF-8.
  const longest = (length: number, n = 0) => String.fromCharCode(0x4e00 + n).repeat(length);
  const documents = Array.from({ length: DOCUMENTS_PER_BUNDLE }, (_, n) => ({
    title: longest(DOCUMENT_TITLE_MAX_LENGTH, n),
    contentType: 'application/pdf',
    content: Buffer.alloc(3),
  }));
  const frame = buildDocumentBundle(documents, {
    profileBase,
    requestIdentifier: `urn:${'x'.repeat(REQUEST_IDENTIFIER_MAX_LENGTH - 4)}`,
    author: longest(AUTHOR_MAX_LENGTH),
  });
  const frameBytes = Buffer.byteLength(JSON.stringify(frame), 'utf8');
  return Math.floor((DOCUMENT_BUNDLE_MAX_BYTES - frameBytes) / 4) * 3;
}
