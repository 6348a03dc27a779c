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

/** One party disabled now (docs/parties.md, "Disabling"): its id and since when. */
export const DisabledParty = z.object({ id: z.string().min(1), disabledAt: z.iso.datetime() });
export type DisabledParty = z.infer<typeof DisabledParty>;

/**
 * Auth, `GET /internal/disabled-parties` (a service token): every party disabled now, however long
 * ago (unlike the revocation list, which holds an access token's lifetime of revocations and keeps a
 * party enabled again within it). The notifier withholds their webhooks (docs/webhooks.md,
 * "Authorization at delivery time"). `asOf`: when auth read them. Opaque ids and times only.
 */
export const DisabledPartiesAnswer = z.object({ parties: z.array(DisabledParty), asOf: z.iso.datetime() });
export type DisabledPartiesAnswer = z.infer<typeof DisabledPartiesAnswer>;
