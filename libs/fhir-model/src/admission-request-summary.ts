import type { AdmissionRequestSummary } from '@bedrequest/contracts';
import type { AdmissionRequestBundle } from './admission-request-bundle';

/**
 * What the message to intake carries of a validated AdmissionRequestBundle (the contract
 * `AdmissionRequestSummary`): the gateway validates once and sends it, so that intake never walks
 * the bundle again.
 */
export function admissionRequestSummary(bundle: AdmissionRequestBundle): AdmissionRequestSummary {
  return {
    identifier: bundle.requestIdentifier,
    requesterIk: bundle.requesterIk,
    status: bundle.status,
    intent: bundle.intent,
    ...(bundle.orderDetail ? { orderDetail: bundle.orderDetail } : {}),
    performerIks: bundle.performerIks,
    patient: bundle.patient,
    departmentCode: bundle.departmentCode,
    ...(bundle.specialty ? { specialty: bundle.specialty } : {}),
    ...(bundle.occurrenceDate ? { occurrenceDate: bundle.occurrenceDate } : {}),
    ...(bundle.answerDeadline ? { answerDeadline: bundle.answerDeadline } : {}),
  };
}
