// The audit trail's entries and anchors of the seeded year. Each kind of entry is the AuditEvent
// intake itself writes (apps/intake/src/audit/audit-event.ts), made once here with placeholders that
// the seed's SQL fills per entry. The entries' hashes link each to the one before (previous_hash)
// but are not SHA-256 over the entries (the seed computes no chain): `audit verify` does not hold on
// seeded days. The anchors are real: made over each day's head with the KEK's derived key, as the
// anchor job makes them (apps/intake/src/audit/audit-anchors.ts).
import type { Client } from 'pg';
import type { KeyEncryptionKeys } from '@bedrequest/crypto';
import { ANCHOR_KEY_PURPOSE, linkOf, sealAnchor, type AnchorRecord } from '../../../apps/intake/src/audit/anchor-chain';
import { GENESIS_HASH } from '../../../apps/intake/src/audit/audit-chain';
import { auditEntryOf, type AuditRecord } from '../../../apps/intake/src/audit/audit-event';
import type { AuditTemplates } from './seed-intake';

const SENTINEL_TIME = new Date(Date.UTC(2000, 0, 1));

/** The resources of the entries the seed writes, as JSON with placeholders (seed-intake.ts, auditChunkSql). */
export function auditTemplates(): AuditTemplates {
  const referrer = { kind: 'referrer', user: '@USER@', name: 'Sozialdienst', ik: '@IK@', address: '10.20.30.40' } as const;
  const clinic = { kind: 'clinic', user: '@USER@', name: 'Aufnahme', ik: '@IK@', address: '10.50.60.70' } as const;
  const request = (extra: Partial<AuditRecord['request']> = {}) => ({ identifier: '@REQ@', ownerPartyId: 'owner', ...extra });
  const task = [{ type: 'Task', id: '@TASK@' }] as const;
  const of = (record: AuditRecord) =>
    JSON.stringify(auditEntryOf(record, '@ID@', SENTINEL_TIME).resource).replace(JSON.stringify(SENTINEL_TIME.toISOString()), '"@REC@"');
  return {
    create: of({ interaction: 'create', agent: referrer, request: request({ version: 1, change: 'created' }), resources: task, source: 'intake' }),
    update: of({ interaction: 'update', agent: referrer, request: request({ version: 2, change: 'supplemented' }), resources: task, source: 'intake' }),
    document: of({ interaction: 'create', agent: referrer, request: request(), resources: [{ type: 'DocumentBundle', id: '@TASK@' }], source: 'intake' }),
    poll: of({ interaction: 'search-type', agent: referrer, request: request(), resources: task, query: 'based-on=@REQ@', source: 'intake' }),
    read: of({ interaction: 'read', agent: clinic, request: request({ version: 1 }), resources: task, source: 'intake' }),
    answer: of({ interaction: 'update', agent: clinic, request: request(), resources: task, source: 'intake' }),
    erase: of({
      interaction: 'delete',
      agent: { kind: 'service', service: 'intake' },
      request: request({ change: 'erased' }),
      resources: task,
      source: 'intake',
    }),
  };
}

/** An anchor for every ended day of the year (`fromDay` to before `today`, as `YYYY-MM-DD`), chained, under the current KEK; returns how many. */
export async function anchorDays(client: Client, schema: string, keks: KeyEncryptionKeys, fromDay: string, today: string): Promise<number> {
  const key = keks.derivedKey(ANCHOR_KEY_PURPOSE);
  if (!key) throw new Error('the current key-encryption key is not held');
  const { rows } = await client.query<{ day: string; seq: number; hash: string }>(
    `SELECT DISTINCT ON (day) day::text AS day, seq, hash FROM "${schema}".audit_events WHERE day >= $1::date AND day < $2::date ORDER BY day, seq DESC`,
    [fromDay, today],
  );
  const heads = new Map(rows.map((row) => [row.day, row]));
  const anchors: AnchorRecord[] = [];
  let previous = GENESIS_HASH;
  for (let day = fromDay; day < today; day = nextDay(day)) {
    const anchor = sealAnchor(key, keks.current.id, heads.get(day) ?? { day, seq: 0, hash: GENESIS_HASH }, previous);
    anchors.push(anchor);
    previous = linkOf(anchor);
  }
  await client.query(
    `INSERT INTO "${schema}".audit_anchors (day, head_seq, head_hash, previous_hash, hash, kek_id, mac, anchored)
     SELECT day, "headSeq", "headHash", "previousHash", hash, "kekId", mac, day + interval '1 day 10 minutes'
       FROM jsonb_to_recordset($1::jsonb) AS a(day date, "headSeq" integer, "headHash" text, "previousHash" text, hash text, "kekId" text, mac text)`,
    [JSON.stringify(anchors)],
  );
  return anchors.length;
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
