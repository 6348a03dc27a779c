import { z } from 'zod';

/**
 * `PUT /api/v1/clinic/capacity/auto-answer` (docs/parties.md, "Automatic answers from bed counts"):
 * whether routing answers for the clinic from its published bed counts. Strict, like every /api/v1
 * request body (an unknown field is 400); the gateway checks it and routing checks it again.
 */
export const AutoAnswerRequest = z.strictObject({
  enabled: z.boolean().describe('true: routing answers new requests from the bed counts; false: the clinic answers itself'),
});
export type AutoAnswerRequest = z.infer<typeof AutoAnswerRequest>;

/** The clinic's setting as routing's `/internal/clinics/{ik}/auto-answer` and the gateway answer it. */
export const AutoAnswerSetting = z.object({ enabled: z.boolean() });
export type AutoAnswerSetting = z.infer<typeof AutoAnswerSetting>;
