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
  /**
   * An AdmissionRequestBundle's fingerprint without its clinics and envelope (`withoutClinics`), by
   * which a version that only adds clinics is recognised (request-state-machine.ts).
   */
  readonly content?: string;
}

/**
 * An AdmissionRequestBundle as it stays when only clinics are added: without the bundle's id,
 * identifier and timestamp (new with every transmission), the ServiceRequest's performers and the
 * Organization entries they reference. Not a bundle any more; only ever fingerprinted.
 */
export function withoutClinics(bundle: unknown): unknown {
  type Entry = { fullUrl?: string; resource?: { resourceType?: string; performer?: { reference?: string }[] } };
  const copy = structuredClone(bundle) as { id?: unknown; identifier?: unknown; timestamp?: unknown; entry?: Entry[] };
  delete copy.id;
  delete copy.identifier;
  delete copy.timestamp;
  const request = copy.entry?.find((each) => each.resource?.resourceType === 'ServiceRequest')?.resource;
  const performers = new Set((request?.performer ?? []).map((performer) => performer.reference));
  if (request) delete request.performer;
  copy.entry = copy.entry?.filter((each) => !(each.resource?.resourceType === 'Organization' && performers.has(each.fullUrl)));
  return copy;
}

/** The fingerprint of a bundle under intake's fingerprint key: one HMAC over its canonical JSON. */
export function bundleFingerprint(key: FingerprintKey, bundle: unknown): BundleFingerprint {
  const canonical = canonicalJson(bundle);
  return { value: key.of(canonical), bytes: Buffer.byteLength(canonical) };
}
