import type { Bundle } from '@medplum/fhirtypes';
import type { z } from 'zod';
import { type OrderDetailCode, SERVICE_TYPE_CODES, type ServiceRequestIntent, type ServiceRequestStatus, type ServiceTypeCode } from './codes';
import type { Issue } from './outcome';
import { type PatientDataLevel, patientDataLevel } from './patient-data';
import { resolveDepartment, type SpecialtyCode } from './specialties';
import { type FhirSystems, URI_IDENTIFIER_SYSTEM } from './systems';
import {
  ADMISSION_REQUEST_CARDINALITY,
  admissionRequestSchemas,
  type AdmissionRequestSchemas,
  type BundleEnvelope,
} from './validation/admission-request.schema';
import { checkResourceCounts, checkUniqueFullUrls, entriesByFullUrl, entriesOf, type EntryView } from './validation/entries';
import { fromZodIssues, issue, parseOptions } from './validation/issues';
import { quoted } from './validation/excerpt';
import { inspectJson } from './validation/json-guard';
import { ITEM_BOUNDS, itemBoundOf } from './validation/bounds';
import { ikNumberOf, type ParsedOrganization } from './validation/organization.schema';
import type { ParsedPatient } from './validation/patient.schema';
import { isRecord } from './validation/raw';
import { checkReferences } from './validation/references';
import { inspectR4Structure } from './validation/r4-structure';
import { answerDeadlineOf, checkAnswerDeadline } from './validation/answer-deadline';
import { checkDistinctPerformers, checkRequestStage } from './validation/request-rules';
import type { ParsedServiceRequest } from './validation/service-request.schema';
import { capIssues, notReportedYet, type ValidationOptions, type ValidationResult } from './validation/result';

/** A requested clinic (a performer Organization). */
export interface PerformerClinic {
  ik: string;
  /** The referrer's link back to its own view of the request (spec, Organization), if given. */
  deepLink: string | undefined;
}

/**
 * What later stages need from a valid AdmissionRequestBundle, read once here so that nobody
 * walks the JSON again.
 */
export interface AdmissionRequestBundle {
  /** `ServiceRequest.identifier[0].value`: the request's stable key (spec, "Matching rules"). */
  requestIdentifier: string;
  /** `Bundle.identifier.value`: traces one transmission, never used for matching. */
  transmissionNumber: string;
  timestamp: string;
  status: ServiceRequestStatus;
  intent: ServiceRequestIntent;
  orderDetail: OrderDetailCode | undefined;
  serviceType: ServiceTypeCode;
  requesterIk: string;
  /** The requested clinics, in the order of `ServiceRequest.performer`. */
  performers: PerformerClinic[];
  performerIks: string[];
  patient: PatientDataLevel;
  /** `Patient.identifier` value (the global patient URI). */
  patientIdentifier: string;
  /** Resolved from `performerType` by `resolveDepartment`. */
  departmentCode: string;
  /** The specialty asked for, or the one specialty of a department key given alone. */
  specialty: SpecialtyCode | undefined;
  /** The desired admission date at the clinic (`occurrenceDateTime`, YYYY-MM-DD). */
  occurrenceDate: string | undefined;
  /** The answer-deadline extension's dateTime, as sent (docs/api.md, "Answer deadlines"). */
  answerDeadline: string | undefined;
  /** The bundle as received. */
  bundle: Bundle;
}

/**
 * Validates a POSTed AdmissionRequestBundle against the spec's field tables and docs/decisions.md and
 * reports every problem found, each with its FHIRPath. Never throws.
 */
export function validateAdmissionRequestBundle(input: unknown, options: ValidationOptions): ValidationResult<AdmissionRequestBundle> {
  try {
    return validate(input, admissionRequestSchemas(options.profileBase), options.now?.() ?? new Date());
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [issue('exception', `the bundle could not be validated: ${reason}`)] };
  }
}

interface ParsedResources {
  serviceRequest?: ParsedServiceRequest;
  patient?: ParsedPatient;
  organizations: Map<string, ParsedOrganization>;
}

function validate(input: unknown, schemas: AdmissionRequestSchemas, now: Date): ValidationResult<AdmissionRequestBundle> {
  if (!isRecord(input)) {
    return { ok: false, issues: [issue('structure', 'an AdmissionRequestBundle must be a JSON object')] };
  }

  const { issues, omitted, overBound } = inspectJson(input, { maxItems: (path) => itemBoundOf(path, ITEM_BOUNDS.admissionEntries) });
  if (overBound) return { ok: false, issues: capIssues(issues, omitted) };
  const structure = inspectR4Structure(input);
  const envelope = schemas.bundle.safeParse(input, parseOptions);
  if (!envelope.success) issues.push(...fromZodIssues(envelope.error.issues));

  const parsed: ParsedResources = { organizations: new Map() };
  // Without an entry array, counting resources would only repeat the bundle schema's issue.
  if (Array.isArray(input['entry'])) issues.push(...checkEntries(entriesOf(input), schemas, parsed, now));
  issues.push(...notReportedYet(structure.issues, issues));
  if (issues.length > 0 || !envelope.success) return { ok: false, issues: capIssues(issues, omitted + structure.omitted) };

  const summary = summarize(input, envelope.data, parsed, schemas.systems);
  return summary ? { ok: true, bundle: summary } : { ok: false, issues: [issue('exception', 'a valid bundle could not be summarized')] };
}

/** The resources one by one, then the rules across them: counts, references, request stage. */
function checkEntries(entries: readonly EntryView[], schemas: AdmissionRequestSchemas, parsed: ParsedResources, now: Date): Issue[] {
  const byFullUrl = entriesByFullUrl(entries);
  const issues = entries.flatMap((entry) => parseResource(entry, schemas, parsed));
  issues.push(...checkUniqueFullUrls(entries), ...checkResourceCounts(entries, ADMISSION_REQUEST_CARDINALITY), ...checkReferences(entries, byFullUrl));
  const serviceRequest = entries.find((entry) => entry.resourceType === 'ServiceRequest');
  if (serviceRequest) {
    const patient = entries.find((entry) => entry.resourceType === 'Patient');
    const context = { serviceRequest, patient, byFullUrl, systems: schemas.systems };
    issues.push(...checkRequestStage(context), ...checkDistinctPerformers(context), ...checkAnswerDeadline(serviceRequest, schemas.systems, now));
  }
  return issues;
}

/** Validates one entry's resource with the schema of its type and keeps what the summary needs. */
function parseResource(entry: EntryView, schemas: AdmissionRequestSchemas, parsed: ParsedResources): Issue[] {
  const { resourceType, resource, index, fullUrl } = entry;
  const at = ['entry', index, 'resource'];
  const check = <T>(schema: z.ZodType<T>, keep: (data: T) => void): Issue[] => {
    const result = schema.safeParse(resource, parseOptions);
    if (result.success) keep(result.data);
    return result.success ? [] : fromZodIssues(result.error.issues, at);
  };
  switch (resourceType) {
    case undefined:
    case '':
      return []; // reported by the bundle schema
    case 'ServiceRequest':
      return check(schemas.serviceRequest, (data) => (parsed.serviceRequest ??= data));
    case 'Patient':
      return check(schemas.patient, (data) => (parsed.patient ??= data));
    case 'Organization':
      return check(schemas.organization, (data) => fullUrl && parsed.organizations.set(fullUrl, data));
  }
  const supporting = schemas.supporting.get(resourceType);
  if (supporting) return check(supporting, () => undefined);
  const allowed = [...ADMISSION_REQUEST_CARDINALITY.keys()].join(', ');
  const diagnostics = `resourceType ${quoted(resourceType)} is not allowed here (allowed: ${allowed})`;
  return [issue('code-invalid', diagnostics, [...at, 'resourceType'])];
}

/** Reads the summary from the parsed resources; undefined only if validation missed something. */
function summarize(
  bundle: Record<string, unknown>,
  envelope: BundleEnvelope,
  { serviceRequest, patient, organizations }: ParsedResources,
  systems: FhirSystems,
): AdmissionRequestBundle | undefined {
  const requester = organizations.get(serviceRequest?.requester.reference ?? '');
  const department = resolveDepartment(serviceRequest?.performerType, systems.profileBase);
  const patientLevel = patientDataLevel(patient);
  const serviceType = serviceRequest?.code.coding.find((coding) => coding.system === systems.serviceTypeSystem)?.code;
  const requestIdentifier = serviceRequest?.identifier[0]?.value;
  const serviceRequestEntry = entriesOf(bundle).find((entry) => entry.resourceType === 'ServiceRequest');
  const requesterIk = requester && ikNumberOf(requester);
  const patientIdentifier = patient?.identifier.find((id) => id.system === URI_IDENTIFIER_SYSTEM)?.value;
  if (!serviceRequest || !department || !patientLevel || !isServiceType(serviceType)) return undefined;
  if (!requestIdentifier || !requesterIk || !patientIdentifier) return undefined;

  const performers = serviceRequest.performer.map((performer) => performerClinic(organizations.get(performer.reference), systems.performerDeepLinkSystem));
  if (!performers.every((performer): performer is PerformerClinic => performer !== undefined)) return undefined;
  return {
    requestIdentifier,
    transmissionNumber: envelope.identifier.value,
    timestamp: envelope.timestamp,
    status: serviceRequest.status,
    intent: serviceRequest.intent,
    orderDetail: serviceRequest.orderDetail?.flatMap((concept) => concept.coding)[0]?.code,
    serviceType,
    requesterIk,
    performers,
    performerIks: performers.map((performer) => performer.ik),
    patient: patientLevel,
    patientIdentifier,
    departmentCode: department.departmentCode,
    specialty: department.specialty?.code,
    occurrenceDate: serviceRequest.occurrenceDateTime,
    answerDeadline: answerDeadlineOf(serviceRequestEntry?.resource, systems),
    bundle: bundle as unknown as Bundle,
  };
}

function performerClinic(organization: ParsedOrganization | undefined, deepLinkSystem: string): PerformerClinic | undefined {
  const ik = organization && ikNumberOf(organization);
  if (!organization || !ik) return undefined;
  return { ik, deepLink: organization.identifier.find((identifier) => identifier.system === deepLinkSystem)?.value };
}

function isServiceType(code: string | undefined): code is ServiceTypeCode {
  return (SERVICE_TYPE_CODES as readonly (string | undefined)[]).includes(code);
}
