import { z } from 'zod';
import { defineMessage } from '../envelope';
import { Submitter } from './submitter';

/** Gateway → intake (request/reply): a DocumentBundle a referrer POSTed, schema-valid. */
export const DocumentBundleSubmittedV1 = defineMessage(
  'document.bundle.submitted',
  1,
  z.object({
    submitter: Submitter,
    receivedAt: z.iso.datetime({ offset: true }),
    bundle: z.record(z.string(), z.unknown()),
  }),
);
export type DocumentBundleSubmittedV1 = z.infer<typeof DocumentBundleSubmittedV1.payload>;
