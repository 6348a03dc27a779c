import { z } from 'zod';

/**
 * `POST /api/v1/token/revoke` (RFC 7009 semantics): the refresh token whose family ends. Any string
 * is a token to look up, as at `/refresh`; one that is not live is answered 200 all the same (RFC
 * 7009 2.2), so only a body without a `refreshToken` string is 400.
 */
export const RevokeRequest = z.strictObject({ refreshToken: z.string() });
export type RevokeRequest = z.infer<typeof RevokeRequest>;
