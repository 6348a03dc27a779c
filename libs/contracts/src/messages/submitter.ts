import { z } from 'zod';
import { IkNumber } from './ik-number';

/** The authenticated referrer on whose behalf a bundle was sent (from its access token). */
export const Submitter = z.object({
  partyId: z.string().min(1),
  ikNumbers: z.array(IkNumber).min(1),
  fhirBase: z.string().min(1),
});
export type Submitter = z.infer<typeof Submitter>;
