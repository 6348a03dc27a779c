import { createHash, randomUUID } from 'node:crypto';
import { type Prisma } from '../generated/prisma/client';
import { intakeTable, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';

/** How long a draft's save may wait for a connection and for its party's lock, each. */
const DRAFT_SAVE_WAIT_MS = 15_000;

/** The person of the party who changed a value: their user id (`act.sub`) and display name, sealed with it. */
export interface ReferrerPerson {
  user: string;
  name?: string;
}

export interface StoredCaseNumber {
  identifier: string;
  caseNumber: string;
  updatedAt: Date;
  by: ReferrerPerson;
}

export interface StoredDraft {
  id: string;
  label?: string;
  savedAt: Date;
  by: ReferrerPerson;
}

interface SealedCaseNumber extends ReferrerPerson {
  caseNumber: string;
}

interface SealedLabel extends ReferrerPerson {
  label?: string;
}

interface CaseNumberRow {
  id: string;
  identifier: string;
  sealed_case_number: Uint8Array;
  updated_at: Date;
}

interface DraftRow {
  id: string;
  sealed_label: Uint8Array;
  saved_at: Date;
}

/**
 * A referrer party's own data beside its requests (migration 0009): case numbers by (party,
 * request identifier), found by a keyed digest, and drafts of new requests. Every value is sealed
 * for its own row (docs/data-protection.md); every statement names the party, so nothing of
 * another party is ever read.
 */
export class ReferrerWorkspaceRepository {
  private readonly t: { caseNumber: Prisma.Sql; draft: Prisma.Sql; request: Prisma.Sql; erasure: Prisma.Sql };

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
    private readonly fields: SealedFields,
  ) {
    const table = (name: string) => intakeTable(schema, name);
    this.t = {
      caseNumber: table('referrer_case_number'),
      draft: table('referrer_draft'),
      request: table('admission_request'),
      erasure: table('request_erasure'),
    };
  }

  /** The erasure of the request `identifier`, if it was erased: whose request it is and when. */
  async erasureOf(identifier: string): Promise<{ referrerPartyId: string; erasedAt: Date } | undefined> {
    const [row] = await this.prisma.$queryRaw<{ referrer_party_id: string; erased_at: Date }[]>`
      SELECT r.referrer_party_id, e.erased_at FROM ${this.t.request} r JOIN ${this.t.erasure} e ON e.request_id = r.id WHERE r.identifier = ${identifier}`;
    return row ? { referrerPartyId: row.referrer_party_id, erasedAt: row.erased_at } : undefined;
  }

  /**
   * The digest a case number is found by: HMAC-SHA-256 under intake's fingerprint key over the
   * party and the number in lower case, so that the search ignores case and a copy of the
   * database without the key cannot confirm a guessed number.
   */
  async digestOf(partyId: string, caseNumber: string): Promise<string> {
    const key = await this.fields.keyring.fingerprintKey();
    return key.of(`referrer_case_number\u0000${partyId}\u0000${caseNumber.normalize('NFC').toLowerCase()}`);
  }

  /** Sets the request's case number (made or replaced) and answers it as stored. */
  async setCaseNumber(partyId: string, identifier: string, caseNumber: string, by: ReferrerPerson, now: Date): Promise<StoredCaseNumber> {
    // The row's id follows from its key, so that the value is sealed for the row it lands in
    // whether the upsert inserts or updates.
    const id = caseNumberRowId(partyId, identifier);
    const sealed = this.fields.seal(sealedFor.caseNumber(id), { caseNumber, ...by } satisfies SealedCaseNumber);
    const digest = await this.digestOf(partyId, caseNumber);
    await this.prisma.$executeRaw`
      INSERT INTO ${this.t.caseNumber} (id, referrer_party_id, identifier, sealed_case_number, case_number_digest, updated_at)
      VALUES (${id}::uuid, ${partyId}, ${identifier}, ${sealed}, ${digest}, ${now})
      ON CONFLICT (referrer_party_id, identifier)
      DO UPDATE SET sealed_case_number = EXCLUDED.sealed_case_number, case_number_digest = EXCLUDED.case_number_digest, updated_at = EXCLUDED.updated_at`;
    return { identifier, caseNumber, updatedAt: now, by };
  }

  async removeCaseNumber(partyId: string, identifier: string): Promise<void> {
    await this.prisma.$executeRaw`DELETE FROM ${this.t.caseNumber} WHERE referrer_party_id = ${partyId} AND identifier = ${identifier}`;
  }

  /** The party's requests whose case number is `caseNumber`, ignoring case, by identifier. */
  async findByCaseNumber(partyId: string, caseNumber: string): Promise<StoredCaseNumber[]> {
    const digest = await this.digestOf(partyId, caseNumber);
    return this.opened(
      await this.prisma.$queryRaw<CaseNumberRow[]>`
        SELECT id::text AS id, identifier, sealed_case_number, updated_at FROM ${this.t.caseNumber}
         WHERE referrer_party_id = ${partyId} AND case_number_digest = ${digest} ORDER BY identifier`,
    );
  }

  /** The case numbers of those of `identifiers` the party gave one, by identifier. */
  async findByIdentifiers(partyId: string, identifiers: readonly string[]): Promise<StoredCaseNumber[]> {
    return this.opened(
      await this.prisma.$queryRaw<CaseNumberRow[]>`
        SELECT id::text AS id, identifier, sealed_case_number, updated_at FROM ${this.t.caseNumber}
         WHERE referrer_party_id = ${partyId} AND identifier = ANY(${[...identifiers]}::text[]) ORDER BY identifier`,
    );
  }

  /**
   * Stores a new draft unless the party holds `max` already (undefined). The party's drafts are
   * counted under a transaction-level advisory lock of the party, so that two saved at once count
   * each other.
   */
  async createDraft(
    partyId: string,
    draft: { label?: string; content: unknown },
    by: ReferrerPerson,
    max: number,
    now: Date,
  ): Promise<StoredDraft | undefined> {
    // A party's saves queue at its lock, each holding a connection: Prisma's defaults (2 s for a
    // connection, 5 s in all) would fail a burst of them on a busy machine, not only those over the cap.
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`referrer_draft:${partyId}`}, 0))::text AS locked`;
        const [count] = await tx.$queryRaw<{ drafts: number }[]>`
        SELECT count(*)::int AS drafts FROM ${this.t.draft} WHERE referrer_party_id = ${partyId}`;
        if ((count?.drafts ?? 0) >= max) return undefined;
        const id = randomUUID();
        const { label, content } = this.sealedDraft(id, draft, by);
        await tx.$executeRaw`
        INSERT INTO ${this.t.draft} (id, referrer_party_id, sealed_label, sealed_content, saved_at)
        VALUES (${id}::uuid, ${partyId}, ${label}, ${content}, ${now})`;
        return { id, ...labelOf(draft), savedAt: now, by };
      },
      { maxWait: DRAFT_SAVE_WAIT_MS, timeout: DRAFT_SAVE_WAIT_MS },
    );
  }

  /** Replaces the party's draft `id`; undefined when the party has none of that id. */
  async updateDraft(partyId: string, id: string, draft: { label?: string; content: unknown }, by: ReferrerPerson, now: Date): Promise<StoredDraft | undefined> {
    const { label, content } = this.sealedDraft(id, draft, by);
    const updated = await this.prisma.$executeRaw`
      UPDATE ${this.t.draft} SET sealed_label = ${label}, sealed_content = ${content}, saved_at = ${now}
       WHERE id = ${id}::uuid AND referrer_party_id = ${partyId}`;
    return updated === 0 ? undefined : { id, ...labelOf(draft), savedAt: now, by };
  }

  /** The party's drafts without their content, saved last first. */
  async listDrafts(partyId: string): Promise<StoredDraft[]> {
    const rows = await this.prisma.$queryRaw<DraftRow[]>`
      SELECT id::text AS id, sealed_label, saved_at FROM ${this.t.draft} WHERE referrer_party_id = ${partyId} ORDER BY saved_at DESC, id`;
    return Promise.all(rows.map((row) => this.draftOf(row)));
  }

  /** The party's draft `id` with its content, opened; undefined when the party has none of that id. */
  async readDraft(partyId: string, id: string): Promise<(StoredDraft & { content: Record<string, unknown> }) | undefined> {
    const [row] = await this.prisma.$queryRaw<(DraftRow & { sealed_content: Uint8Array })[]>`
      SELECT id::text AS id, sealed_label, sealed_content, saved_at FROM ${this.t.draft} WHERE id = ${id}::uuid AND referrer_party_id = ${partyId}`;
    if (!row) return undefined;
    const content = await this.fields.open<Record<string, unknown>>(sealedFor.draftContent(row.id), row.sealed_content);
    return { ...(await this.draftOf(row)), content };
  }

  /** Deletes the party's draft `id`; whether there was one. */
  async deleteDraft(partyId: string, id: string): Promise<boolean> {
    return (await this.prisma.$executeRaw`DELETE FROM ${this.t.draft} WHERE id = ${id}::uuid AND referrer_party_id = ${partyId}`) > 0;
  }

  /** Deletes every party's drafts saved last before `before` (the retention job); how many. */
  async deleteDraftsSavedBefore(before: Date): Promise<number> {
    return this.prisma.$executeRaw`DELETE FROM ${this.t.draft} WHERE saved_at < ${before}`;
  }

  private sealedDraft(id: string, draft: { label?: string; content: unknown }, by: ReferrerPerson) {
    return {
      label: this.fields.seal(sealedFor.draftLabel(id), { ...labelOf(draft), ...by } satisfies SealedLabel),
      content: this.fields.seal(sealedFor.draftContent(id), draft.content),
    };
  }

  private async draftOf(row: DraftRow): Promise<StoredDraft> {
    const sealed = await this.fields.open<SealedLabel>(sealedFor.draftLabel(row.id), row.sealed_label);
    return { id: row.id, ...labelOf(sealed), savedAt: row.saved_at, by: personOf(sealed) };
  }

  private opened(rows: CaseNumberRow[]): Promise<StoredCaseNumber[]> {
    return Promise.all(
      rows.map(async (row) => {
        const sealed = await this.fields.open<SealedCaseNumber>(sealedFor.caseNumber(row.id), row.sealed_case_number);
        return { identifier: row.identifier, caseNumber: sealed.caseNumber, updatedAt: row.updated_at, by: personOf(sealed) };
      }),
    );
  }
}

/** A UUID of SHA-256 over the party and the identifier: the one row of that pair has it whoever writes it first. */
export function caseNumberRowId(partyId: string, identifier: string): string {
  const hex = createHash('sha256').update(`${partyId}\u0000${identifier}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function labelOf(value: { label?: string }): { label?: string } {
  return value.label === undefined ? {} : { label: value.label };
}

function personOf(sealed: ReferrerPerson): ReferrerPerson {
  return { user: sealed.user, ...(sealed.name === undefined ? {} : { name: sealed.name }) };
}
