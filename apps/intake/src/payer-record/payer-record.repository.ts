import { createHash } from 'node:crypto';
import { intakeTable, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import { askedByRuleOf, type StoredHistoryEntry, type TaskNote } from '../tasks';
import type { RecordSources } from './payer-record';

/** A request as the record needs it, found by one of its Tasks. */
export interface RecordRequest {
  id: string;
  identifier: string;
  referrerPartyId: string;
  referrerIk: string;
  currentVersion: number;
  erasedAt: Date | null;
  /** The clinic of the Task it was found by: the access policy's fact. */
  clinicIk: string;
}

/** When the hospital declared the patient ready for transfer, and who (sealed, docs/data-protection.md). */
export interface ReadyForTransfer {
  readyAt: Date;
  user: string;
  name?: string;
}

/**
 * The SQL of the payer's record (docs/api.md, "The record for the payer"): what intake stores of a
 * request's versions and Tasks, opened, and the hospital's own ready-for-transfer time (migration
 * 0014), kept by party and request identifier like its case number and deleted with the request's
 * patient data (erasure/request-erasure.repository.ts).
 */
export class PayerRecordRepository {
  private readonly t;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
    private readonly fields: SealedFields,
  ) {
    const table = (name: string) => intakeTable(schema, name);
    this.t = {
      request: table('admission_request'),
      version: table('request_version'),
      task: table('clinic_task'),
      erasure: table('request_erasure'),
      ready: table('referrer_ready_for_transfer'),
      audit: table('audit_events'),
    };
  }

  async requestOfTask(taskId: string): Promise<RecordRequest | undefined> {
    const [row] = await this.prisma.$queryRaw<
      { id: string; identifier: string; referrer_party_id: string; referrer_ik: string; current_version: number; erased_at: Date | null; clinic_ik: string }[]
    >`
      SELECT r.id::text AS id, r.identifier, r.referrer_party_id, r.referrer_ik, r.current_version, e.erased_at, t.clinic_ik
        FROM ${this.t.task} t JOIN ${this.t.request} r ON r.id = t.request_id LEFT JOIN ${this.t.erasure} e ON e.request_id = r.id
       WHERE t.id = ${taskId}::uuid`;
    if (!row) return undefined;
    return {
      id: row.id,
      identifier: row.identifier,
      referrerPartyId: row.referrer_party_id,
      referrerIk: row.referrer_ik,
      currentVersion: row.current_version,
      erasedAt: row.erased_at,
      clinicIk: row.clinic_ik,
    };
  }

  /** The versions, Tasks (histories and notes opened) and ready-for-transfer time of a request not erased. */
  async sourcesOf(request: RecordRequest): Promise<RecordSources> {
    const [versions, tasks, readyForTransfer, senders] = await Promise.all([
      this.prisma.$queryRaw<{ version: number; received_at: Date; submitted_by: string | null }[]>`
        SELECT version, received_at, submitted_by FROM ${this.t.version} WHERE request_id = ${request.id}::uuid ORDER BY version`,
      this.prisma.$queryRaw<
        {
          id: string;
          clinic_ik: string;
          sealed_history: Uint8Array | null;
          sealed_notes: Uint8Array | null;
          asked_by_rule: unknown;
          answer_deadline: Date | null;
        }[]
      >`
        SELECT id::text AS id, clinic_ik, sealed_history, sealed_notes, asked_by_rule, answer_deadline
          FROM ${this.t.task} WHERE request_id = ${request.id}::uuid ORDER BY authored_on, clinic_ik`,
      this.readyForTransfer(request.referrerPartyId, request.identifier),
      this.senderNames(request),
    ]);
    return {
      versions: versions.map((row) => {
        const name = row.submitted_by === null ? undefined : senders.get(senderKey(row.version, row.submitted_by));
        return { version: row.version, receivedAt: row.received_at, submittedBy: row.submitted_by, ...(name ? { submitterName: name } : {}) };
      }),
      tasks: await Promise.all(
        tasks.map(async (row) => ({
          clinicIk: row.clinic_ik,
          history: row.sealed_history ? await this.fields.open<StoredHistoryEntry[]>(sealedFor.history(row.id), row.sealed_history) : [],
          notes: row.sealed_notes ? await this.fields.open<TaskNote[]>(sealedFor.notes(row.id), row.sealed_notes) : [],
          askedByRule: askedByRuleOf(row.asked_by_rule),
          answerDeadline: row.answer_deadline,
        })),
      ),
      ...(readyForTransfer ? { readyForTransfer } : {}),
    };
  }

  /**
   * The display names of who sent each version, by version and user id: a version is stored with
   * the sender's user id alone, and its `create`/`update` AuditEvent, written by the same statement,
   * names the person with their display name at the time (docs/data-protection.md, "Audit trail").
   * A token without a display name left none: that version's sender stays `user:<id>`.
   */
  private async senderNames(request: RecordRequest): Promise<Map<string, string>> {
    const rows = await this.prisma.$queryRaw<{ version: string; user: string; name: string }[]>`
      SELECT d->>'valueString' AS version, a.agent_user AS user, a.resource->'agent'->0->>'name' AS name
        FROM ${this.t.audit} a, jsonb_array_elements(a.resource->'entity') e, jsonb_array_elements(e->'detail') d
       WHERE a.request_identifier = ${request.identifier} AND a.owner_party_id = ${request.referrerPartyId}
         AND a.resource->>'action' IN ('C', 'U') AND a.resource->'agent'->0->'role'->0->>'text' = 'referrer'
         AND a.agent_user IS NOT NULL AND a.resource->'agent'->0->>'name' IS NOT NULL
         AND e->'what'->>'type' = 'ServiceRequest' AND d->>'type' = 'version'
       ORDER BY a.recorded`;
    const names = new Map<string, string>();
    for (const row of rows) {
      const key = senderKey(Number(row.version), row.user);
      if (!names.has(key)) names.set(key, row.name);
    }
    return names;
  }

  /** The request's latest bundle, opened: whose stay the record is about. */
  async latestBundle(request: RecordRequest): Promise<unknown> {
    const [row] = await this.prisma.$queryRaw<{ sealed_bundle: Uint8Array }[]>`
      SELECT sealed_bundle FROM ${this.t.version} WHERE request_id = ${request.id}::uuid AND version = ${request.currentVersion}`;
    return row ? this.fields.open<unknown>(sealedFor.bundle(request.id, request.currentVersion), row.sealed_bundle) : undefined;
  }

  /** Whether the party has a request of `identifier`, and whether its patient data was erased. */
  async requestState(partyId: string, identifier: string): Promise<'none' | 'erased' | 'stored'> {
    const [row] = await this.prisma.$queryRaw<{ erased: boolean }[]>`
      SELECT e.request_id IS NOT NULL AS erased FROM ${this.t.request} r LEFT JOIN ${this.t.erasure} e ON e.request_id = r.id
       WHERE r.identifier = ${identifier} AND r.referrer_party_id = ${partyId}`;
    return !row ? 'none' : row.erased ? 'erased' : 'stored';
  }

  async readyForTransfer(partyId: string, identifier: string): Promise<ReadyForTransfer | undefined> {
    const [row] = await this.prisma.$queryRaw<{ id: string; sealed_ready: Uint8Array }[]>`
      SELECT id::text AS id, sealed_ready FROM ${this.t.ready} WHERE referrer_party_id = ${partyId} AND identifier = ${identifier}`;
    if (!row) return undefined;
    const opened = await this.fields.open<{ readyAt: string; user: string; name?: string }>(sealedFor.readyForTransfer(row.id), row.sealed_ready);
    return { readyAt: new Date(opened.readyAt), user: opened.user, ...(opened.name ? { name: opened.name } : {}) };
  }

  /** Sets (or replaces) when the patient was ready for transfer. */
  async setReadyForTransfer(partyId: string, identifier: string, ready: ReadyForTransfer, now: Date): Promise<void> {
    // The row's id follows from its key, as a case number's does (sealed for the row it lands in).
    const id = readyRowId(partyId, identifier);
    const sealed = this.fields.seal(sealedFor.readyForTransfer(id), { ...ready, readyAt: ready.readyAt.toISOString() });
    await this.prisma.$executeRaw`
      INSERT INTO ${this.t.ready} (id, referrer_party_id, identifier, sealed_ready, updated_at)
      VALUES (${id}::uuid, ${partyId}, ${identifier}, ${sealed}, ${now})
      ON CONFLICT (referrer_party_id, identifier) DO UPDATE SET sealed_ready = EXCLUDED.sealed_ready, updated_at = EXCLUDED.updated_at`;
  }

  async removeReadyForTransfer(partyId: string, identifier: string): Promise<void> {
    await this.prisma.$executeRaw`DELETE FROM ${this.t.ready} WHERE referrer_party_id = ${partyId} AND identifier = ${identifier}`;
  }
}

function senderKey(version: number, user: string): string {
  return `${version}\u0000${user}`;
}

/** A row id that follows from (party, identifier): a UUID-shaped SHA-256 prefix. */
function readyRowId(partyId: string, identifier: string): string {
  const hex = createHash('sha256').update(`referrer_ready_for_transfer\u0000${partyId}\u0000${identifier}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
