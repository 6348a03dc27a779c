import type { CapabilityStatement, CapabilityStatementRestResource } from '@medplum/fhirtypes';
import { expectValidFhir } from '@bedrequest/testing';
import { validateAdmissionRequestBundle } from '../admission-request-bundle';
import { bundleKind } from '../bundle-kind';
import { validateDocumentBundle } from '../document-bundle';
import { DEFAULT_PROFILE_BASE, fhirSystems } from '../systems';
import { TASK_SEARCH_PARAMETERS } from '../task-search-parameters';
import { admissionRequestBundle, documentBundle } from '../testing';
import { AUDIT_EVENT_SEARCH_PARAMETERS } from '../audit-event-search-parameters';
import {
  AUDIT_EVENT_RESULT_PARAMETERS,
  capabilityStatement,
  conformanceResources,
  TASK_RESULT_PARAMETERS,
  type CapabilityStatementOptions,
} from './capability-statement';

const options: CapabilityStatementOptions = {
  profileBase: DEFAULT_PROFILE_BASE,
  version: '1.2.3',
  date: '2026-11-22T10:00:00.000Z',
  fhirBaseUrl: 'http://127.0.0.1:8080/api/v2/fhir',
  tokenEndpoints: { login: '/api/v1/token/login', refresh: '/api/v1/token/refresh' },
};
const statement = capabilityStatement(options);
const rest = statement.rest?.[0];
const resource = (of: CapabilityStatement, type: string): CapabilityStatementRestResource => {
  const found = of.rest?.[0]?.resource?.find((candidate) => candidate.type === type);
  if (!found) throw new Error(`no rest.resource ${type}`);
  return found;
};
const interactions = (type: string) => resource(statement, type).interaction?.map((interaction) => interaction.code);

describe('the CapabilityStatement', () => {
  it('is a valid FHIR R4 CapabilityStatement, for a validator outside the project', () => {
    expectValidFhir(statement, 'CapabilityStatement');
    expectValidFhir(capabilityStatement({ ...options, fhirBaseUrl: undefined }), 'CapabilityStatement without a base URL');
  });

  it('describes this running instance: FHIR 4.0.1 in JSON, its version, base and date', () => {
    expect(statement).toMatchObject({
      status: 'active',
      kind: 'instance',
      date: options.date,
      fhirVersion: '4.0.1',
      format: ['application/fhir+json', 'json'],
      software: { version: '1.2.3' },
      implementation: { url: options.fhirBaseUrl },
    });
    expect(rest?.mode).toBe('server');
  });

  it('names bearer tokens and the token endpoints, and what needs no token', () => {
    const security = rest?.security;
    expect(security?.service?.[0]?.coding).toEqual([
      { system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'OAuth', display: 'OAuth' },
    ]);
    expect(security?.description).toContain('POST /api/v1/token/login');
    expect(security?.description).toContain('POST /api/v1/token/refresh');
    expect(security?.description).toContain('Authorization: Bearer');
    expect(security?.description).toContain('except `GET [base]/metadata`, `GET [base]/.well-known/smart-configuration` and the conformance resources');
  });

  it('lists every Task search parameter the search declares, with its type and definition, and only the result parameters besides', () => {
    const listed = resource(statement, 'Task').searchParam ?? [];
    expect(listed.map(({ name, type, definition }) => ({ name, type, definition }))).toEqual([
      ...TASK_SEARCH_PARAMETERS.map((parameter) => ({
        name: parameter.name,
        type: parameter.type,
        definition: 'definition' in parameter ? parameter.definition : undefined,
      })),
      ...TASK_RESULT_PARAMETERS.map(({ name, type }) => ({ name, type, definition: undefined })),
    ]);
    expect(interactions('Task')).toEqual(['read', 'search-type']);
  });

  it("lists the referrer's read of a request, a search by identifier, and the erasure, a conditional delete by it", () => {
    expect(interactions('ServiceRequest')).toEqual(['delete', 'search-type']);
    expect(resource(statement, 'ServiceRequest')).toMatchObject({
      conditionalDelete: 'single',
      searchParam: [{ name: 'identifier', type: 'token', definition: 'http://hl7.org/fhir/SearchParameter/ServiceRequest-identifier' }],
    });
  });

  it('lists the AuditEvent search with every parameter the search declares, and _count', () => {
    const listed = resource(statement, 'AuditEvent').searchParam ?? [];
    expect(listed.map(({ name, type, definition }) => ({ name, type, definition }))).toEqual([
      ...AUDIT_EVENT_SEARCH_PARAMETERS.map(({ name, type, definition }) => ({ name, type, definition })),
      ...AUDIT_EVENT_RESULT_PARAMETERS.map(({ name, type }) => ({ name, type, definition: undefined })),
    ]);
    expect(listed.map(({ name }) => name)).toEqual(['entity', 'date', 'agent', '_count', '_total']);
    expect(interactions('AuditEvent')).toEqual(['search-type']);
  });

  it('lists the Bundle intake with exactly the profiles the bundle validators claim', () => {
    const systems = fhirSystems(DEFAULT_PROFILE_BASE);
    const supported = resource(statement, 'Bundle').supportedProfile ?? [];
    expect(interactions('Bundle')).toEqual(['create']);
    expect(supported).toEqual([systems.admissionRequestBundleProfile, systems.documentBundleProfile]);

    // Each listed profile is one the intake tells apart, and the bundles the validators accept claim listed profiles.
    for (const profile of supported) expect(bundleKind({ meta: { profile: [profile] } }, DEFAULT_PROFILE_BASE)).not.toBe('unknown');
    const admission = admissionRequestBundle();
    const document = documentBundle();
    expect(validateAdmissionRequestBundle(admission, { profileBase: DEFAULT_PROFILE_BASE }).ok).toBe(true);
    expect(validateDocumentBundle(document, { profileBase: DEFAULT_PROFILE_BASE }).ok).toBe(true);
    expect(supported).toEqual(expect.arrayContaining([...(admission.meta?.profile ?? []), ...(document.meta?.profile ?? [])]));
  });

  it('lists the conformance resources as readable and searchable, and every profile it supports is one of them', () => {
    const resources = conformanceResources(options);
    for (const type of ['StructureDefinition', 'CodeSystem'] as const) {
      expect(interactions(type)).toEqual(['read', 'search-type']);
      for (const { url } of resources[type]) expect(resource(statement, type).documentation).toContain(url);
    }
    const served = resources.StructureDefinition.map((profile) => profile.url);
    expect(served).toEqual(expect.arrayContaining(resource(statement, 'Bundle').supportedProfile ?? []));
    // The extensions are served beside the profiles, and are no profile of a Bundle.
    expect(served.filter((url) => !resource(statement, 'Bundle').supportedProfile?.includes(url))).toEqual([
      'https://bedrequest.example.org/fhir/StructureDefinition/answer-deadline',
      'https://bedrequest.example.org/fhir/StructureDefinition/answer-overdue',
      'https://bedrequest.example.org/fhir/StructureDefinition/asked-by-rule',
    ]);
    expect(resources.StructureDefinition.find((definition) => definition.id === 'answer-deadline')).toMatchObject({
      type: 'Extension',
      context: [{ type: 'element', expression: 'ServiceRequest' }],
      differential: { element: expect.arrayContaining([expect.objectContaining({ path: 'Extension.value[x]', type: [{ code: 'dateTime' }] })]) },
    });
  });

  it('follows the profile base', () => {
    const elsewhere = capabilityStatement({ ...options, profileBase: 'https://profiles.example' });
    expect(resource(elsewhere, 'Bundle').supportedProfile).toEqual([
      'https://profiles.example/fhir/StructureDefinition/AdmissionRequestBundle',
      'https://profiles.example/fhir/StructureDefinition/DocumentBundle',
    ]);
  });
});
