import { randomUUID } from 'node:crypto';
import type { Bundle, Composition, DocumentReference } from '@medplum/fhirtypes';
import { DEFAULT_PROFILE_BASE, fhirSystems, URI_IDENTIFIER_SYSTEM } from '../systems';
import { FIXTURE_FHIR_BASE, FIXTURE_TIMESTAMP } from './admission-request-bundle';
import { seededUuid, urnUuid } from './ids';

export interface FixtureDocument {
  contentType: string;
  /** The document's content as text; it is base64-encoded into `attachment.data`. */
  text: string;
  title?: string;
}

export interface DocumentFixtureOptions {
  profileBase?: string;
  /** The ServiceRequest identifier the documents belong to. Default: a new request under `FIXTURE_FHIR_BASE`. */
  requestIdentifier?: string;
  documents?: readonly FixtureDocument[];
  timestamp?: string;
}

const DEFAULT_DOCUMENTS: readonly FixtureDocument[] = [
  { contentType: 'text/plain', text: 'Entlassbrief: Zustand nach Hüft-TEP, mobil an Unterarmgehstützen.', title: 'Arztbrief' },
];

/**
 * A valid DocumentBundle (docs/decisions.md, "Requests"): a Composition first, then one
 * DocumentReference per document naming the request's identifier. The same options give the same JSON.
 */
export function documentBundle(options: DocumentFixtureOptions = {}): Bundle {
  const systems = fhirSystems(options.profileBase ?? DEFAULT_PROFILE_BASE);
  const requestIdentifier = options.requestIdentifier ?? `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const documents = options.documents ?? DEFAULT_DOCUMENTS;
  const timestamp = options.timestamp ?? FIXTURE_TIMESTAMP;
  const id = (role: string) => seededUuid(requestIdentifier, 'documents', role, timestamp);

  const references: DocumentReference[] = documents.map((document, index) => ({
    resourceType: 'DocumentReference',
    id: id(`DocumentReference/${index}`),
    status: 'current',
    content: [
      {
        attachment: {
          contentType: document.contentType,
          data: Buffer.from(document.text, 'utf8').toString('base64'),
          ...(document.title ? { title: document.title } : {}),
        },
      },
    ],
    context: { related: [{ identifier: { system: URI_IDENTIFIER_SYSTEM, value: requestIdentifier } }] },
  }));
  const composition: Composition = {
    resourceType: 'Composition',
    id: id('Composition'),
    status: 'final',
    type: { text: 'Befunde zur Aufnahmeanfrage' },
    date: timestamp,
    author: [{ display: 'Akutklinik Mitte' }],
    title: 'Befunde',
    section: [{ entry: references.map((reference) => ({ reference: urnUuid(reference.id ?? '') })) }],
  };
  return {
    resourceType: 'Bundle',
    id: id('Bundle'),
    meta: { profile: [systems.documentBundleProfile] },
    identifier: { system: URI_IDENTIFIER_SYSTEM, value: urnUuid(id('identifier')) },
    type: 'document',
    timestamp,
    entry: [composition, ...references].map((resource) => ({ fullUrl: urnUuid(resource.id ?? ''), resource })),
  };
}
