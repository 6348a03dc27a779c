import { IK_NUMBER_SYSTEM } from '@bedrequest/fhir-model';

/**
 * The versions of the request, up to the clinic's `sentVersion`, that went to the clinic, oldest
 * first. Intake keeps only the latest version a clinic was sent; which earlier ones it received
 * follows from the request state machine's rules (docs/decisions.md, "Requests";
 * request-state-machine.ts), replayed here over the versions in order, with whether the clinic's
 * Task is open:
 * - a proposal (the new request, a supplement) goes to every clinic it names and to every clinic
 *   whose Task is open, named or not (each is asked to answer again); those Tasks are then open;
 * - a selection goes to the selected clinic alone; every other Task is cancelled;
 * - a withdrawal of the selection and a revocation send nothing and cancel the Tasks.
 * So a clinic that another clinic's selection left out never sees the selection version with its
 * complete master data, and a clinic named again after a gap does not see the versions of the gap.
 */
export function versionsSentTo<Version extends { readonly bundle: unknown }>(clinicIk: string, versions: readonly Version[]): Version[] {
  let open = false;
  return versions.filter((version) => {
    const sent = sentTo(clinicIk, version.bundle, open);
    open = sent.open;
    return sent.received;
  });
}

function sentTo(clinicIk: string, bundle: unknown, open: boolean): { received: boolean; open: boolean } {
  const resources = entriesOf(bundle);
  const serviceRequest = resources.find(({ resource }) => resource.resourceType === 'ServiceRequest')?.resource;
  // Not a request's bundle: nothing was sent, and nothing changed.
  if (!serviceRequest) return { received: false, open };
  const orderDetails = arrayOf(serviceRequest.orderDetail)
    .flatMap((concept) => arrayOf(recordOf(concept)?.coding))
    .map((coding) => recordOf(coding)?.code);
  if (serviceRequest.status === 'revoked' || orderDetails.includes('selected-provider-cancelled')) return { received: false, open: false };
  const byFullUrl = new Map(resources.map(({ fullUrl, resource }) => [fullUrl, resource]));
  const named = arrayOf(serviceRequest.performer).some((performer) => {
    const organization = byFullUrl.get(String(recordOf(performer)?.reference ?? ''));
    return arrayOf(organization?.identifier).some(
      (identifier) => recordOf(identifier)?.system === IK_NUMBER_SYSTEM && recordOf(identifier)?.value === clinicIk,
    );
  });
  if (orderDetails.includes('selected-provider')) return { received: named, open: named };
  return { received: named || open, open: named || open };
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
