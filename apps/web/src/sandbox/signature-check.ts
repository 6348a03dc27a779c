import { timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { z } from 'zod';

/** A secret the inspector checks deliveries with: a subscription's, or one the person entered. */
export interface KnownSecret {
  /** `AdmissionResponse` / `AdmissionOverdue` (a subscription made on the page), or `entered`. */
  readonly label: string;
  readonly secret: string;
}

/**
 * What the check of one delivery found (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)"):
 * - `valid`: a signature of `webhook-signature` verifies with one of the secrets, the timestamp is within 5 minutes;
 * - `stale`: the timestamp is more than 5 minutes off (a replay, or a wrong clock); `signatureMatches` says whether the signature itself verifies;
 * - `invalid`: no signature verifies with any secret, or the signature headers are missing or malformed;
 * - `no-secret`: the inspector knows no secret of the party to check with;
 * - `not-checked`: the body was too large to keep (413).
 */
export const SignatureCheck = z.discriminatedUnion('state', [
  z.object({ state: z.literal('valid'), secretLabel: z.string() }),
  z.object({ state: z.literal('stale'), signatureMatches: z.boolean(), secretLabel: z.string().optional() }),
  z.object({ state: z.literal('invalid'), reason: z.enum(['missing-headers', 'no-match']) }),
  z.object({ state: z.literal('no-secret') }),
  z.object({ state: z.literal('not-checked') }),
]);
export type SignatureCheck = z.infer<typeof SignatureCheck>;

export type SignatureState = SignatureCheck['state'];

/** Whether a text is a Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 bytes (the service's are 32). */
export function isWebhookSecret(text: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(text);
  if (!match?.[1] || match[1].length % 4 !== 0) return false;
  const bytes = Buffer.from(match[1], 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/**
 * Checks a delivery as a receiver would, with the `standardwebhooks` package, against every secret
 * known: the first that verifies wins. The package refuses a stale timestamp before it compares
 * signatures; that case is told apart by signing once more with the timestamp as given.
 */
export function checkSignature(body: Buffer, headers: Readonly<Record<string, string>>, secrets: readonly KnownSecret[]): SignatureCheck {
  if (secrets.length === 0) return { state: 'no-secret' };
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (!id || !timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return { state: 'invalid', reason: 'missing-headers' };
  let stale = false;
  for (const { label, secret } of secrets) {
    const webhook = new Webhook(secret);
    try {
      // The body as received, not parsed: a receiver checks the bytes, whatever they are.
      webhook.verify(body, { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature }, { jsonParse: false });
      return { state: 'valid', secretLabel: label };
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      if (!/timestamp too (old|new)/.test(error.message)) continue;
      stale = true;
      if (signs(webhook, { id, timestamp, signature }, body)) return { state: 'stale', signatureMatches: true, secretLabel: label };
    }
  }
  return stale ? { state: 'stale', signatureMatches: false } : { state: 'invalid', reason: 'no-match' };
}

/** Whether one `v1` signature of the header is the secret's for the id, timestamp and body as given. */
function signs(webhook: Webhook, headers: { id: string; timestamp: string; signature: string }, body: Buffer): boolean {
  const expected = Buffer.from(webhook.sign(headers.id, new Date(Number(headers.timestamp) * 1000), body).slice('v1,'.length));
  return headers.signature.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    const given = Buffer.from(value ?? '');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
