import { z } from 'zod';
import { IkNumber } from './ik-number';

/** The authenticated referrer on whose behalf a bundle was sent (from its access token). */
export const Submitter = z.object({
  partyId: z.string().min(1),
  ikNumbers: z.array(IkNumber).min(1),
  fhirBase: z.string().min(1),
});
export type Submitter = z.infer<typeof Submitter>;

/**
 * What the gateway sends with every bundle a referrer POSTed (admission.bundle.submitted,
 * document.bundle.submitted): who sent it, when, and the bundle.
 */
export const BundleSubmission = z.object({
  submitter: Submitter,
  receivedAt: z.iso.datetime({ offset: true }),
  /**
   * The bundle exactly as received, validated by the gateway against libs/fhir-model. Not typed
   * here: its rules are libs/fhir-model's, and intake stores it as it came (a zod object would
   * also put its keys in the schema's order).
   */
  bundle: z.record(z.string(), z.unknown()),
});
