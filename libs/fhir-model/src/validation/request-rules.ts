import { ORDER_DETAIL_CODES, type OrderDetailCode } from '../codes';
import type { Issue } from '../outcome';
import { isMaskedName } from '../patient-data';
import { type FhirSystems, IK_NUMBER_SYSTEM } from '../systems';
import type { EntryView } from './entries';
import { issue } from './issues';
import { arrayField, field, stringField } from './raw';

/**
 * Prefix of the diagnostics of the one issue docs/decisions.md singles out: a provider selection with
 * incomplete patient data is a 400 ("Requests": "the bundle is rejected with 409 (state
 * conflict) or 400 (incomplete patient)").
 */
export const INCOMPLETE_PATIENT_AT_SELECTION = 'incomplete patient data at provider selection';

interface RequestContext {
  serviceRequest: EntryView;
  patient: EntryView | undefined;
  byFullUrl: ReadonlyMap<string, EntryView>;
  systems: FhirSystems;
}

/**
 * The rules between `status`, `intent`, `orderDetail`, `performer` and the patient's data level
 * (spec, "States and transitions"; docs/decisions.md, "Requests"). `status: revoked` takes precedence
 * over every other field, so a revoked bundle is a cancellation and none of these apply to it.
 */
export function checkRequestStage({ serviceRequest, patient, systems }: RequestContext): Issue[] {
  const resource = serviceRequest.resource;
  if (field(resource, 'status') === 'revoked') return [];
  const at = (element: string) => ['entry', serviceRequest.index, 'resource', element];

  const intent = field(resource, 'intent');
  const orderDetails = orderDetailCodes(resource, systems);
  const orderDetailIssue = checkOrderDetail(intent, orderDetails);
  if (orderDetailIssue) return [issue(orderDetailIssue.code, orderDetailIssue.diagnostics, at('orderDetail'))];
  const [orderDetail] = orderDetails;
  if (intent !== 'order' || !orderDetail) return [];

  const issues: Issue[] = [];
  const performerCount = arrayField(resource, 'performer').length;
  if (performerCount !== 1) {
    const what = orderDetail === 'selected-provider' ? 'a provider selection' : 'a withdrawal of the selection';
    const diagnostics = `${what} names exactly one performer, the selected clinic (found ${performerCount})`;
    issues.push(issue('invalid', diagnostics, at('performer')));
  }
  if (orderDetail === 'selected-provider' && patient) issues.push(...checkCompletePatient(patient));
  return issues;
}

/** `intent: order` carries exactly one orderDetail code (selection or withdrawal); a proposal none. */
function checkOrderDetail(intent: unknown, orderDetails: readonly OrderDetailCode[]): Omit<Issue, 'expression'> | undefined {
  if (intent === 'proposal' && orderDetails.length > 0) {
    return { code: 'invalid', diagnostics: "orderDetail (provider selection or its withdrawal) requires intent 'order'" };
  }
  if (intent === 'order' && orderDetails.length === 0) {
    return { code: 'required', diagnostics: `intent 'order' requires an orderDetail code: ${ORDER_DETAIL_CODES.join(' or ')}` };
  }
  if (intent === 'order' && orderDetails.length > 1) {
    const diagnostics = `intent 'order' requires exactly one orderDetail code, found ${orderDetails.length}`;
    return { code: 'invalid', diagnostics };
  }
  return undefined;
}

function checkCompletePatient(patient: EntryView): Issue[] {
  const maskedIndex = arrayField(patient.resource, 'name').findIndex(isMaskedName);
  if (maskedIndex < 0) return [];
  const diagnostics = `${INCOMPLETE_PATIENT_AT_SELECTION}: the family name is masked (MSK); ` + 'complete master data are required when a clinic is selected';
  return [issue('required', diagnostics, ['entry', patient.index, 'resource', 'name', maskedIndex, 'family'])];
}

/** The valid orderDetail codes the ServiceRequest carries (invalid ones are the schema's concern). */
function orderDetailCodes(serviceRequest: unknown, systems: FhirSystems): OrderDetailCode[] {
  return arrayField(serviceRequest, 'orderDetail')
    .flatMap((concept) => arrayField(concept, 'coding'))
    .filter((coding) => stringField(coding, 'system') === systems.orderDetailSystem)
    .map((coding) => stringField(coding, 'code'))
    .filter((code): code is OrderDetailCode => (ORDER_DETAIL_CODES as readonly (string | undefined)[]).includes(code));
}

/**
 * Each requested clinic is named once: a clinic has one Task per request (docs/decisions.md, "Tasks"),
 * so a second performer with the same IK number (or the same reference) is an error.
 */
export function checkDistinctPerformers({ serviceRequest, byFullUrl }: RequestContext): Issue[] {
  const firstIndexByClinic = new Map<string, number>();
  const issues: Issue[] = [];
  arrayField(serviceRequest.resource, 'performer').forEach((performer, index) => {
    const reference = stringField(performer, 'reference');
    if (reference === undefined) return;
    const clinic = ikNumberOf(byFullUrl.get(reference)?.resource) ?? reference;
    const first = firstIndexByClinic.get(clinic);
    if (first === undefined) firstIndexByClinic.set(clinic, index);
    else {
      issues.push(
        issue('invalid', `performer[${index}] names the same clinic as performer[${first}]`, ['entry', serviceRequest.index, 'resource', 'performer', index]),
      );
    }
  });
  return issues;
}

function ikNumberOf(organization: unknown): string | undefined {
  const identifier = arrayField(organization, 'identifier').find((id) => stringField(id, 'system') === IK_NUMBER_SYSTEM);
  return stringField(identifier, 'value');
}
