import type { ElementDefinition, StructureDefinition } from '@medplum/fhirtypes';
import { fhirSystems } from '../systems';
import { ADMISSION_REQUEST_CARDINALITY } from '../validation/admission-request.schema';
import { ITEM_BOUNDS, REQUEST_BOUNDS } from '../validation/bounds';
import type { Cardinality } from '../validation/entries';
import { canonicalMetadata, type ConformanceOptions } from './canonical';

/**
 * The two Bundle profiles of the interface (spec, "AdmissionRequestBundle"; docs/decisions.md,
 * "Requests") as FHIR R4 StructureDefinitions: constraints on the base Bundle, given as a
 * differential. They state what the bundle validators check on the Bundle itself (profile claim,
 * type, identifier, timestamp, which resources and how many); the rules on the resources inside are
 * described in docs/api.md and checked by `validateAdmissionRequestBundle` /
 * `validateDocumentBundle`.
 */

/**
 * docs/decisions.md, "Requests": a Composition first, then one or more DocumentReferences. Only the first
 * Composition is the document's (bdl-11); the validator lets later entries be Compositions too.
 */
export const DOCUMENT_BUNDLE_CARDINALITY: ReadonlyMap<string, Cardinality> = new Map([
  ['Composition', { min: 1, max: Infinity }],
  ['DocumentReference', { min: 1, max: Infinity }],
]);

const BUNDLE_BASE_DEFINITION = 'http://hl7.org/fhir/StructureDefinition/Bundle';

export function bundleProfiles(options: ConformanceOptions): StructureDefinition[] {
  const systems = fhirSystems(options.profileBase);
  const profile = (url: string, name: string, title: string, description: string, element: ElementDefinition[]): StructureDefinition => ({
    resourceType: 'StructureDefinition',
    ...canonicalMetadata({ url, name, title, description }, options),
    fhirVersion: '4.0.1',
    kind: 'resource',
    abstract: false,
    type: 'Bundle',
    baseDefinition: BUNDLE_BASE_DEFINITION,
    derivation: 'constraint',
    differential: { element },
  });

  return [
    profile(
      systems.admissionRequestBundleProfile,
      'AdmissionRequestBundle',
      'Admission request',
      'A request to admit a patient, sent to one or more rehabilitation clinics: a collection of the ServiceRequest, the Patient, the Organizations of the requester and the requested clinics, and optionally Coverage, Encounter, Conditions and Observations. Sent again, whole, with every update of the request.',
      [
        { id: 'Bundle', path: 'Bundle', short: 'Admission request', comment: limitsComment() },
        { id: 'Bundle.id', path: 'Bundle.id', min: 1 },
        ...claimsProfile(systems.admissionRequestBundleProfile, 'admissionRequestBundle'),
        { id: 'Bundle.identifier', path: 'Bundle.identifier', min: 1, short: 'Traces one transmission; never used to match requests' },
        { id: 'Bundle.identifier.system', path: 'Bundle.identifier.system', min: 1, fixedUri: systems.admissionRequestNamingSystem },
        { id: 'Bundle.identifier.value', path: 'Bundle.identifier.value', min: 1, short: 'Transmission number' },
        { id: 'Bundle.type', path: 'Bundle.type', fixedCode: 'collection' },
        { id: 'Bundle.timestamp', path: 'Bundle.timestamp', min: 1, short: 'ISO 8601 date-time with seconds and a time-zone offset' },
        ...entriesOf(ADMISSION_REQUEST_CARDINALITY, {
          max: ITEM_BOUNDS.admissionEntries,
          rules: 'closed',
          fullUrl: 'urn:uuid:<uuid>; references between the entries use this form',
        }),
      ],
    ),
    profile(
      systems.documentBundleProfile,
      'DocumentBundle',
      'Documents of an admission request',
      'Documents for an admission request already sent: a FHIR document whose Composition comes first, followed by DocumentReferences that name the ServiceRequest identifier (context.related.identifier, system urn:ietf:rfc:3986) and carry their content as base64 attachments with a contentType.',
      [
        { id: 'Bundle', path: 'Bundle', short: 'Documents of an admission request', comment: limitsComment() },
        ...claimsProfile(systems.documentBundleProfile, 'documentBundle'),
        { id: 'Bundle.type', path: 'Bundle.type', fixedCode: 'document' },
        ...entriesOf(DOCUMENT_BUNDLE_CARDINALITY, {
          max: ITEM_BOUNDS.documentEntries,
          rules: 'open',
          fullUrl: 'An absolute URI',
          // The base Bundle's invariant bdl-11 requires it too.
          sliceShort: { Composition: "The first entry is the document's Composition" },
        }),
      ],
    ),
  ];
}

/** `Bundle.meta.profile` must contain `profile` (the profile claim tells the two bundles apart). */
function claimsProfile(profile: string, sliceName: string): ElementDefinition[] {
  return [
    { id: 'Bundle.meta', path: 'Bundle.meta', min: 1 },
    {
      id: 'Bundle.meta.profile',
      path: 'Bundle.meta.profile',
      min: 1,
      slicing: { discriminator: [{ type: 'value', path: '$this' }], rules: 'open' },
    },
    { id: `Bundle.meta.profile:${sliceName}`, path: 'Bundle.meta.profile', sliceName, min: 1, max: '1', fixedCanonical: profile },
  ];
}

/** The bounds of the repeating elements inside the resources, which this differential does not profile (validation/bounds.ts). */
function limitsComment(): string {
  return [
    `Limits: at most ${ITEM_BOUNDS.performers} ServiceRequest.performer, ${ITEM_BOUNDS.codings} codings per CodeableConcept, ${ITEM_BOUNDS.notes} notes per resource,`,
    `${ITEM_BOUNDS.attachments} DocumentReference.content, ${ITEM_BOUNDS.other} items in any other repeating element;`,
    'a count over its limit is refused with 400 and one OperationOutcome issue of code too-long at the element.',
    `One request holds at most ${REQUEST_BOUNDS.versions} versions, ${REQUEST_BOUNDS.documents} documents and ${REQUEST_BOUNDS.bytes / (1024 * 1024)} MiB of bundles by default:`,
    'a supplement or document over one is refused with 409 and an issue of code too-long; a selection, its withdrawal and a revocation never are.',
  ].join(' ');
}

/** `Bundle.entry` sliced by resource type: one slice per allowed type, with its cardinality, and at most `max` in all. */
function entriesOf(
  cardinality: ReadonlyMap<string, Cardinality>,
  { max, rules, fullUrl, sliceShort = {} }: { max: number; rules: 'closed' | 'open'; fullUrl: string; sliceShort?: Partial<Record<string, string>> },
): ElementDefinition[] {
  const slices = [...cardinality];
  const min = slices.reduce((sum, [, slice]) => sum + slice.min, 0);
  return [
    {
      id: 'Bundle.entry',
      path: 'Bundle.entry',
      min,
      max: String(max),
      slicing: {
        discriminator: [{ type: 'type', path: 'resource' }],
        rules,
        description: rules === 'closed' ? 'By resource type; no other resource type is allowed' : 'By resource type; other resource types may follow',
      },
    },
    { id: 'Bundle.entry.fullUrl', path: 'Bundle.entry.fullUrl', min: 1, short: fullUrl },
    { id: 'Bundle.entry.resource', path: 'Bundle.entry.resource', min: 1 },
    ...slices.flatMap(([resourceType, slice]): ElementDefinition[] => [
      {
        id: `Bundle.entry:${resourceType}`,
        path: 'Bundle.entry',
        sliceName: resourceType,
        min: slice.min,
        // No slice holds more than the entries may in all.
        max: String(Math.min(slice.max, max)),
        ...(sliceShort[resourceType] ? { short: sliceShort[resourceType] } : {}),
      },
      { id: `Bundle.entry:${resourceType}.resource`, path: 'Bundle.entry.resource', min: 1, type: [{ code: resourceType }] },
    ]),
  ];
}
