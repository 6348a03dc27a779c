import { z } from 'zod';

/** One person (`act.sub` of their tokens) or party (`sub`) whose access tokens issued until `revokedAt` are refused. */
export const RevokedSubject = z.object({ id: z.string().min(1), revokedAt: z.iso.datetime() });
export type RevokedSubject = z.infer<typeof RevokedSubject>;

/**
 * Auth, `GET /internal/revocations` (a service token): the people and parties disabled within an
 * access token's lifetime and a margin, whose tokens issued at or before `revokedAt` are refused
 * (docs/parties.md, "Disabling"); older revocations are left out, their tokens have expired.
 * `asOf`: when auth read them. Opaque ids and times only.
 */
export const RevocationListAnswer = z.object({
  users: z.array(RevokedSubject),
  parties: z.array(RevokedSubject),
  asOf: z.iso.datetime(),
});
export type RevocationListAnswer = z.infer<typeof RevocationListAnswer>;
