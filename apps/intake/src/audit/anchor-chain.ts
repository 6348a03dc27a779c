import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { GENESIS_HASH } from './audit-chain';

/** What the anchor key is derived for (KeyEncryptionKeys.derivedKey): no other key is derived so. */
export const ANCHOR_KEY_PURPOSE = 'audit-anchor';
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * An anchor as stored (`audit_anchors`, migrations 0003 and 0005) and as exported: the day's head
 * (the last entry's seq and hash; 0 and 64 zeros for a day without entries), the hash of the anchor
 * before it, its own hash over those, and an HMAC-SHA256 under the key derived from KEK `kekId`.
 * An anchor made before migration 0005 has neither hash, and its MAC covers the head alone.
 */
export interface AnchorRecord {
  day: string;
  headSeq: number;
  headHash: string;
  previousHash: string | null;
  hash: string | null;
  kekId: string;
  mac: string;
}

/** The head of a day without entries: no entry, and the hash its first entry will follow. */
export const EMPTY_HEAD = { seq: 0, hash: GENESIS_HASH } as const;

/**
 * What an anchor's hash and MAC are computed over. An anchor of the release before covered
 * `bedrequest-audit-anchor:<day>:<seq>:<hash>`; a chained one adds the previous hash as a fourth
 * field, so neither MAC passes for the other.
 */
function preimage(anchor: Pick<AnchorRecord, 'day' | 'headSeq' | 'headHash' | 'previousHash'>): string {
  const fields = [anchor.day, anchor.headSeq, anchor.headHash, ...(anchor.previousHash === null ? [] : [anchor.previousHash])];
  return `bedrequest-audit-anchor:${fields.join(':')}`;
}

/** SHA-256 (hex) over the day, its head and the previous anchor's hash. */
export function anchorHash(anchor: Pick<AnchorRecord, 'day' | 'headSeq' | 'headHash'> & { previousHash: string }): string {
  return createHash('sha256').update(preimage(anchor), 'utf8').digest('hex');
}

/** The hash the next anchor names: an anchor of the release before counts as the first of a chain (64 zeros before it). */
export function linkOf(anchor: AnchorRecord): string {
  return anchor.hash ?? anchorHash({ ...anchor, previousHash: GENESIS_HASH });
}

/** HMAC-SHA256 (hex) over what the anchor records. */
export function anchorMac(key: Buffer, anchor: Pick<AnchorRecord, 'day' | 'headSeq' | 'headHash' | 'previousHash'>): string {
  return createHmac('sha256', key).update(preimage(anchor), 'utf8').digest('hex');
}

/** A new anchor of `day`'s head after the anchor whose hash is `previousHash`. */
export function sealAnchor(
  key: Buffer,
  kekId: string,
  head: { day: string; seq: number; hash: string },
  previousHash: string,
): AnchorRecord & { hash: string } {
  const fields = { day: head.day, headSeq: head.seq, headHash: head.hash, previousHash };
  return { ...fields, hash: anchorHash(fields), kekId, mac: anchorMac(key, fields) };
}

/**
 * Why the anchor does not hold on its own (its MAC under `key`, its hash), undefined when it does.
 * Whether it follows the anchor before it is ChainOfAnchors's.
 */
export function anchorFault(anchor: AnchorRecord, key: Buffer): string | undefined {
  if (!sameMac(anchorMac(key, anchor), anchor.mac)) return "its day's anchor does not verify (altered, or made with another key under that id)";
  if (anchor.previousHash !== null && anchor.hash !== anchorHash({ ...anchor, previousHash: anchor.previousHash })) {
    return "its anchor's hash is not the hash of what the anchor records (altered)";
  }
  return undefined;
}

function sameMac(expected: string, actual: string): boolean {
  const [a, b] = [Buffer.from(expected, 'utf8'), Buffer.from(actual, 'utf8')];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The UTC day after `day` (YYYY-MM-DD). */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

/** The UTC day of an instant. */
export function dayOf(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/** When `day` ends (the next midnight, UTC), in milliseconds. */
export function endOf(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) + DAY_MS;
}
