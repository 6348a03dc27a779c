import { createHash } from 'node:crypto';
import { canonicalJson } from '../persistence';
import { auditColumnsOf, type AuditColumns, type AuditEntry } from './audit-event';

/**
 * The hash chain of the audit trail: the entries of one UTC day are one chain, each entry's hash
 * SHA-256 over its canonical JSON followed by the hash of the entry before it (GENESIS_HASH for the
 * day's first). The database computes the same when it appends (`append_audit_events`, migration
 * 0007); this module is what the verification recomputes with, so the two must agree, which the
 * integration tests check on entries the database wrote.
 *
 * The canonical JSON is canonical-json.ts's: object keys sorted by UTF-16 code units, arrays in
 * order, strings and numbers as JSON.stringify writes them. For the values an entry holds
 * (strings, integers, booleans, objects, arrays) that is the JSON Canonicalization Scheme of RFC
 * 8785, so an outside tool can recompute a chain.
 */
export const GENESIS_HASH = '0'.repeat(64);

export function canonicalEntry(entry: AuditEntry): string {
  return canonicalJson(entry);
}

export function chainHash(canonical: string, previousHash: string): string {
  return createHash('sha256')
    .update(canonical + previousHash, 'utf8')
    .digest('hex');
}

/** An entry as stored: its place in the chain, the columns the search reads, and its hashes. */
export interface StoredAuditEntry {
  day: string;
  seq: number;
  columns: AuditColumns;
  entry: AuditEntry;
  previousHash: string;
  hash: string;
}

/** The first entry of a day's chain that does not hold, and why. */
export interface ChainBreak {
  day: string;
  seq: number;
  id: string;
  reason: string;
}

/**
 * Checks one day's entries, fed in `seq` order: numbered 1, 2, 3… without a gap, each naming the
 * hash of the one before, each hash recomputed from the entry, each entry of this day, and the
 * search columns as the entry says. `check` answers the first entry that fails (and every one after
 * it, whose chain is then unproven), undefined while the chain holds. A chain cut short at its end
 * is not visible here: the table refuses DELETE.
 */
export class ChainChecker {
  private previousHash = GENESIS_HASH;
  private expectedSeq = 1;

  constructor(private readonly day: string) {}

  check(stored: StoredAuditEntry): ChainBreak | undefined {
    const broken = (reason: string): ChainBreak => ({ day: this.day, seq: stored.seq, id: stored.columns.id, reason });
    if (stored.seq !== this.expectedSeq) return broken(`entry ${this.expectedSeq} is missing (the next one is ${stored.seq})`);
    if (stored.previousHash !== this.previousHash) return broken('its previous hash is not the hash of the entry before it');
    if (chainHash(canonicalEntry(stored.entry), stored.previousHash) !== stored.hash) return broken('its content does not match its hash');
    if (stored.entry.resource.recorded.slice(0, 10) !== this.day) return broken(`it was recorded on another day (${stored.entry.resource.recorded})`);
    const columns = auditColumnsOf(stored.entry);
    const differing = (Object.keys(columns) as (keyof AuditColumns)[]).filter((name) => !sameValue(name, columns[name], stored.columns[name]));
    if (differing.length) return broken(`its columns ${differing.join(', ')} differ from the AuditEvent`);
    this.previousHash = stored.hash;
    this.expectedSeq += 1;
    return undefined;
  }
}

function sameValue(name: keyof AuditColumns, expected: string | null, actual: string | null): boolean {
  // PostgreSQL answers instants in its own notation: compared as instants.
  if (name === 'recorded') return expected !== null && actual !== null && new Date(expected).getTime() === new Date(actual).getTime();
  return expected === actual;
}
