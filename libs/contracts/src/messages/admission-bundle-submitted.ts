import { z } from 'zod';
import { defineMessage } from '../envelope';
import { OrderDetailCode, ServiceRequestIntent, ServiceRequestStatus } from '../codes';
import { IkNumber } from './ik-number';
import { BundleSubmission } from './submitter';

/**
 * What the gateway read from a valid AdmissionRequestBundle when it validated it: everything the
 * request state machine needs, so that intake checks the message contract and the state rules but
 * never walks the FHIR bundle again.
 */
export const AdmissionRequestSummary = z.object({
  /** `ServiceRequest.identifier[0].value`: the request's stable key (spec, "Matching rules"). */
  identifier: z.string().min(1).max(2048),
  requesterIk: IkNumber,
  status: ServiceRequestStatus,
  intent: ServiceRequestIntent,
  orderDetail: OrderDetailCode.optional(),
  /** The requested clinics in `ServiceRequest.performer` order. */
  performerIks: z.array(IkNumber).min(1),
  patient: z.enum(['masked', 'complete']),
  /** Resolved from performerType (specialty first, then department key). */
  departmentCode: z.string().regex(/^\d{4}$/),
  specialty: z.string().optional(),
  /** Desired admission date (YYYY-MM-DD) when given. */
  occurrenceDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
  /**
   * The ServiceRequest's answer-deadline extension (a date-time with seconds and an offset) when
   * given (docs/api.md, "Answer deadlines"); absent: the party's default on a new request, unchanged
   * on an update.
   */
  answerDeadline: z.iso.datetime({ offset: true }).optional(),
});
export type AdmissionRequestSummary = z.infer<typeof AdmissionRequestSummary>;

/** Gateway → intake (request/reply): an AdmissionRequestBundle a referrer POSTed, validated. */
export const AdmissionBundleSubmittedV1 = defineMessage(
  'admission.bundle.submitted',
  1,
  BundleSubmission.extend({
    /** What the gateway read of the bundle when it validated it: intake decides on this, never on the bundle. */
    request: AdmissionRequestSummary,
  }),
);
export type AdmissionBundleSubmittedV1 = z.infer<typeof AdmissionBundleSubmittedV1.payload>;
