import { z } from 'zod';

/** The authenticated referrer on whose behalf a bundle was sent (from its access token). */
export const Submitter = z.object({
  partyId: z.string().min(1),
  ikNumbers: z.array(z.string().regex(/^\d{9}$/)).min(1),
  fhirBase: z.string().min(1),
});
export type Submitter = z.infer<typeof Submitter>;
