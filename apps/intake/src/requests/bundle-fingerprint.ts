import type { FingerprintKey } from '@bedrequest/crypto';
import { canonicalJson } from '../persistence';

/**
 * How intake recognises a bundle it stored before (an identical retransmission, docs/decisions.md: "same
 * JSON after sorting object keys; array order counts"): by the keyed fingerprint of its canonical
 * JSON, stored in `request_version.canonical_hash`, `request_document.canonical_hash` and
 * `admission_request.latest_hash` (docs/data-protection.md).
 */
export interface BundleFingerprint {
  /** What is stored: `hmac-sha256:` and the hex of the HMAC of the canonical JSON under intake's fingerprint key. */
  readonly value: string;
  /** The size of its canonical JSON in bytes: what the bundle counts against its request's limit (request-limits.ts). */
  readonly bytes: number;
}

/** The fingerprint of a bundle under intake's fingerprint key: one HMAC over its canonical JSON. */
export function bundleFingerprint(key: FingerprintKey, bundle: unknown): BundleFingerprint {
  const canonical = canonicalJson(bundle);
  return { value: key.of(canonical), bytes: Buffer.byteLength(canonical) };
}
