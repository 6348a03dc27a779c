import { z } from 'zod';
import { defineMessage } from '../envelope';
import { BundleSubmission } from './submitter';

/** Gateway → intake (request/reply): a DocumentBundle a referrer POSTed, validated. */
export const DocumentBundleSubmittedV1 = defineMessage(
  'document.bundle.submitted',
  1,
  BundleSubmission.extend({
    /** The ServiceRequest identifier the documents name, read by the gateway when it validated the bundle. */
    requestIdentifier: z.string().min(1).max(2048),
  }),
);
export type DocumentBundleSubmittedV1 = z.infer<typeof DocumentBundleSubmittedV1.payload>;
