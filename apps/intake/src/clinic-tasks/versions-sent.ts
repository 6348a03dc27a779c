import { IK_NUMBER_SYSTEM } from '@bedrequest/fhir-model';

/** A stored version of a request, as the clinic may read it. */
export interface RequestVersionView {
  version: number;
  receivedAt: string;
  bundle: unknown;
}

/**
 * Whether a version of the request up to the clinic's `sentVersion` went to the clinic. Intake keeps
 * only the latest version a clinic was sent; which earlier ones it received follows from the
 * request state machine's rule (decisions.md, "Requests"; request-state-machine.ts): a version is
 * sent to the clinics it names as performers, except a withdrawal of the selection
 * (`selected-provider-cancelled`) and a revocation, which cancel Tasks and send nothing. So a clinic
 * that another clinic's selection left out never sees the selection version with its complete
 * master data, and a clinic named again after a gap does not see the versions of the gap.
 */
export function wasSentTo(clinicIk: string, bundle: unknown): boolean {
  const resources = entriesOf(bundle);
  const serviceRequest = resources.find(({ resource }) => resource.resourceType === 'ServiceRequest')?.resource;
  if (!serviceRequest) return false;
  if (serviceRequest.status === 'revoked') return false;
  const orderDetails = arrayOf(serviceRequest.orderDetail).flatMap((concept) => arrayOf(recordOf(concept)?.coding));
  if (orderDetails.some((coding) => recordOf(coding)?.code === 'selected-provider-cancelled')) return false;
  const byFullUrl = new Map(resources.map(({ fullUrl, resource }) => [fullUrl, resource]));
  return arrayOf(serviceRequest.performer).some((performer) => {
    const organization = byFullUrl.get(String(recordOf(performer)?.reference ?? ''));
    return arrayOf(organization?.identifier).some(
      (identifier) => recordOf(identifier)?.system === IK_NUMBER_SYSTEM && recordOf(identifier)?.value === clinicIk,
    );
  });
}

/** The versions the clinic received, oldest first, from those up to its `sentVersion`. */
export function versionsSentTo(clinicIk: string, versions: readonly RequestVersionView[]): RequestVersionView[] {
  return versions.filter((version) => wasSentTo(clinicIk, version.bundle));
}

type JsonRecord = Record<string, unknown>;

function entriesOf(bundle: unknown): { fullUrl: string; resource: JsonRecord }[] {
  return arrayOf(recordOf(bundle)?.entry).flatMap((entry) => {
    const resource = recordOf(recordOf(entry)?.resource);
    return resource ? [{ fullUrl: String(recordOf(entry)?.fullUrl ?? ''), resource }] : [];
  });
}

function recordOf(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
