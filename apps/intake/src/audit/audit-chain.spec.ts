import { createHash } from 'node:crypto';
import { ChainChecker, GENESIS_HASH, canonicalEntry, chainHash, type StoredAuditEntry } from './audit-chain';
import { auditColumnsOf, auditEntryOf, type AuditEntry } from './audit-event';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const entryAt = (n: number, recorded = new Date(`2026-11-22T10:00:0${n}.000Z`)): AuditEntry =>
  auditEntryOf(
    {
      interaction: 'read',
      agent: { kind: 'clinic', user: 'clinic-user', ik: '510000001', address: '203.0.113.9' },
      request: { identifier: `https://hospital.example/fhir/ServiceRequest/${n}`, ownerPartyId: 'referrer-1' },
      resources: [{ type: 'Task', id: `00000000-0000-4000-8000-00000000000${n}` }],
      source: 'intake',
    },
    `00000000-0000-4000-9000-00000000000${n}`,
    recorded,
  );

/** A day's chain as append_audit_events writes it. */
function chainOf(entries: AuditEntry[]): StoredAuditEntry[] {
  let previousHash = GENESIS_HASH;
  return entries.map((entry, index) => {
    const hash = chainHash(canonicalEntry(entry), previousHash);
    const stored = { day: '2026-11-22', seq: index + 1, columns: auditColumnsOf(entry), entry, previousHash, hash };
    previousHash = hash;
    return stored;
  });
}

const firstBreak = (entries: StoredAuditEntry[]) => {
  const checker = new ChainChecker('2026-11-22');
  for (const entry of entries) {
    const broken = checker.check(entry);
    if (broken) return broken;
  }
  return undefined;
};

describe('the canonical form of an entry', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    const entry = { ownerPartyId: 'p', resource: { b: [3, { z: 1, a: 2 }, 1], a: 'x' } } as unknown as AuditEntry;
    expect(canonicalEntry(entry)).toBe('{"ownerPartyId":"p","resource":{"a":"x","b":[3,{"a":2,"z":1},1]}}');
  });

  it('is the same whatever order the keys were written in', () => {
    const entry = entryAt(1);
    const reordered = JSON.parse(
      JSON.stringify({ resource: Object.fromEntries(Object.entries(entry.resource).reverse()), ownerPartyId: entry.ownerPartyId }),
    ) as AuditEntry;
    expect(canonicalEntry(reordered)).toBe(canonicalEntry(entry));
  });

  it('writes strings as JSON does (RFC 8785): quotes, backslashes and control characters escaped, other characters as they are', () => {
    const entry = { ownerPartyId: 'Müller "\\ \n \u0007 €', resource: {} } as unknown as AuditEntry;
    expect(canonicalEntry(entry)).toBe('{"ownerPartyId":"Müller \\"\\\\ \\n \\u0007 €","resource":{}}');
  });
});

describe('the hash chain', () => {
  it('hashes the canonical JSON followed by the previous hash, hex-encoded SHA-256', () => {
    expect(GENESIS_HASH).toBe('0'.repeat(64));
    expect(chainHash('{"a":1}', GENESIS_HASH)).toBe(sha256(`{"a":1}${'0'.repeat(64)}`));
    // Known value: sha256("abc").
    expect(chainHash('ab', 'c')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('accepts an intact chain', () => {
    expect(firstBreak(chainOf([entryAt(1), entryAt(2), entryAt(3)]))).toBeUndefined();
  });

  it('names the entry whose content was edited', () => {
    const chain = chainOf([entryAt(1), entryAt(2), entryAt(3)]);
    chain[1]!.entry.resource.agent[0]!.altId = 'someone-else';

    expect(firstBreak(chain)).toEqual({ day: '2026-11-22', seq: 2, id: chain[1]!.columns.id, reason: 'its content does not match its hash' });
  });

  it('names the entry after one that was rewritten with a recomputed hash', () => {
    const chain = chainOf([entryAt(1), entryAt(2), entryAt(3)]);
    chain[1]!.entry.resource.outcome = '8';
    chain[1]!.hash = chainHash(canonicalEntry(chain[1]!.entry), chain[1]!.previousHash);

    expect(firstBreak(chain)).toMatchObject({ seq: 3, reason: 'its previous hash is not the hash of the entry before it' });
  });

  it('names a gap where an entry was removed', () => {
    const chain = chainOf([entryAt(1), entryAt(2), entryAt(3)]);
    expect(firstBreak([chain[0]!, chain[2]!])).toMatchObject({ seq: 3, reason: 'entry 2 is missing (the next one is 3)' });
  });

  it('names an entry whose search columns were changed to hide it from its owner or show it to another clinic', () => {
    const owner = chainOf([entryAt(1), entryAt(2)]);
    owner[1]!.entry = { ...owner[1]!.entry, ownerPartyId: 'referrer-2' };
    expect(firstBreak(owner)).toMatchObject({ seq: 2, reason: 'its content does not match its hash' });

    const agent = chainOf([entryAt(1), entryAt(2)]);
    agent[0]!.columns.agent_ik = '510000002';
    expect(firstBreak(agent)).toMatchObject({ seq: 1, reason: 'its columns agent_ik differ from the AuditEvent' });
  });

  it('names an entry filed under another day', () => {
    const chain = chainOf([entryAt(1), entryAt(2, new Date('2026-11-23T00:00:00.000Z'))]);
    expect(firstBreak(chain)).toMatchObject({ seq: 2, reason: 'it was recorded on another day (2026-11-23T00:00:00.000Z)' });
  });
});
