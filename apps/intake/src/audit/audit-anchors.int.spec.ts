import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AUDIT_CLI, openIntakeServices } from '../cli';
import type { IntakeCliConfig } from '../config';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { testSealedFields } from '../testing';
import { AuditAnchors } from './audit-anchors';
import { canonicalEntry, chainHash } from './audit-chain';
import type { AuditEntry } from './audit-event';
import { AuditTrailRepository } from './audit-trail.repository';
import { AuditTrail } from './audit-trail.service';

const env = testEnvironment();
const DAY_MS = 24 * 60 * 60 * 1000;
const ZEROS = '0'.repeat(64);
/** A UTC day `n` days before today (today when the file loaded: a run across midnight is not expected). */
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const YESTERDAY = daysAgo(1);

interface AnchorRow {
  day: string;
  head_seq: number;
  head_hash: string;
  previous_hash: string | null;
  hash: string | null;
}

/**
 * The anchors of the audit trail against the real PostgreSQL, each test in a schema of its own: an
 * anchor for every ended day (an empty one too), chained, so that a day removed with its anchor is
 * named by `audit verify`; and an export of the anchors kept outside the database, against which
 * `audit verify --anchors` finds a day removed even where every later anchor was made again.
 */
describe('the anchors of the audit trail', () => {
  const pool = new Pool({ connectionString: env.databaseUrl, max: 2 });
  const scratch = mkdtempSync(join(tmpdir(), 'audit-anchors-'));
  const opened: { schema: string; prisma: IntakeDatabase }[] = [];

  afterAll(async () => {
    for (const { schema, prisma } of opened) {
      await prisma.$disconnect();
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
    await pool.end();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A fresh intake schema: writing entries on past days, anchoring as an intake process does, the command line, SQL as the superuser. */
  async function trail() {
    const schema = uniqueName('intake_anchors');
    const prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    opened.push({ schema, prisma });
    const repository = new AuditTrailRepository(prismaRunner(prisma), schema);
    const { keyring } = await testSealedFields(prisma, schema);
    const anchors = new AuditAnchors(repository, keyring.keks);
    const config: IntakeCliConfig = {
      NODE_ENV: 'test',
      DATABASE_URL: env.databaseUrl,
      DATABASE_POOL_SIZE: 2,
      INTAKE_DB_SCHEMA: schema,
      DATA_KEK: undefined,
      DATA_KEK_ID: undefined,
      DATA_PREVIOUS_KEKS: [],
      ADMIN_OPERATOR: undefined,
    };
    const sql = async <T>(text: string, values: unknown[] = []) => (await pool.query(text.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
    return {
      schema,
      keks: keyring.keks,
      /** `n` reads recorded on `day` (at noon, a millisecond apart). */
      async write(day: string, n: number) {
        let tick = 0;
        const audit = new AuditTrail(repository, () => new Date(Date.parse(`${day}T12:00:00Z`) + (tick += 1)));
        for (let i = 0; i < n; i += 1) await audit.record([read(`${day}-${i}`)]);
      },
      anchor: () => anchors.anchorEndedDays(),
      async cli(argv: string[]) {
        const out: string[] = [];
        const err: string[] = [];
        const code = await AUDIT_CLI.run(argv, { open: () => openIntakeServices(config), out: (line) => out.push(line), err: (line) => err.push(line) });
        return { code, out: out.join('\n'), err: err.join('\n') };
      },
      /** The anchors as stored, oldest first (to_jsonb: the columns a release without them lacks read as null). */
      anchors: () =>
        sql<AnchorRow>(`SELECT a.day::text AS day, a.head_seq, a.head_hash, to_jsonb(a) ->> 'previous_hash' AS previous_hash, to_jsonb(a) ->> 'hash' AS hash
                          FROM $schema.audit_anchors a ORDER BY a.day`),
      /** As the superuser with triggers off (what the append-only guard cannot stop): removes a day's entries and the anchors of `anchorDays`. */
      async remove(day: string, anchorDays: string[] = [day]) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('SET LOCAL session_replication_role = replica');
          await client.query(`DELETE FROM "${schema}".audit_events WHERE day = $1`, [day]);
          await client.query(`DELETE FROM "${schema}".audit_anchors WHERE day = ANY($1::date[])`, [anchorDays]);
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      },
      /** As the superuser with triggers off: a day's entry 2 changed and every hash after it recomputed, as someone with write access could. */
      async rewrite(day: string) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('SET LOCAL session_replication_role = replica');
          const table = `"${schema}".audit_events`;
          const { rows } = await client.query<{ seq: number; resource: AuditEntry['resource']; owner_party_id: string }>(
            `SELECT seq, resource, owner_party_id FROM ${table} WHERE day = $1 ORDER BY seq`,
            [day],
          );
          let previous = ZEROS;
          for (const row of rows) {
            const resource = row.seq === 2 ? { ...row.resource, agent: [{ ...row.resource.agent[0]!, altId: 'someone-else' }] } : row.resource;
            const hash = chainHash(canonicalEntry({ ownerPartyId: row.owner_party_id, resource }), previous);
            await client.query(`UPDATE ${table} SET resource = $1, agent_user = $2, previous_hash = $3, hash = $4 WHERE day = $5 AND seq = $6`, [
              resource,
              resource.agent[0]?.altId ?? null,
              previous,
              hash,
              day,
              row.seq,
            ]);
            previous = hash;
          }
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      },
      sql,
    };
  }

  const read = (name: string) => ({
    interaction: 'read' as const,
    agent: { kind: 'clinic' as const, user: `user-${name}`, ik: '510000001' },
    request: { identifier: `https://hospital.example/fhir/ServiceRequest/anchor-${name}`, ownerPartyId: 'referrer-anchors' },
    source: 'intake',
  });
  const file = (name: string) => join(scratch, `${uniqueName(name)}.jsonl`);

  it('anchors every ended day from the first with entries, an empty day too, each naming the hash of the anchor before it', async () => {
    const t = await trail();
    await t.write(daysAgo(5), 2);
    await t.write(daysAgo(3), 1);

    expect(await t.anchor()).toBe(5);
    expect(await t.anchor()).toBe(0);

    const anchors = await t.anchors();
    expect(anchors.map((anchor) => [anchor.day, anchor.head_seq])).toEqual([
      [daysAgo(5), 2],
      [daysAgo(4), 0],
      [daysAgo(3), 1],
      [daysAgo(2), 0],
      [YESTERDAY, 0],
    ]);
    // An empty day's head: no entry, and the hash a day's first entry follows.
    expect(anchors[1]!.head_hash).toBe(ZEROS);
    expect(anchors[0]!.previous_hash).toBe(ZEROS);
    for (const [i, anchor] of anchors.entries()) {
      expect(anchor.hash).toMatch(/^[0-9a-f]{64}$/);
      if (i > 0) expect(anchor.previous_hash).toBe(anchors[i - 1]!.hash);
    }
    expect(await t.cli(['audit', 'verify'])).toEqual({ code: 0, out: 'the audit trail is intact: 3 entries of 5 days checked', err: '' });
    expect(await t.cli(['audit', 'verify', '--date', daysAgo(4)])).toEqual({ code: 0, out: 'the audit trail is intact: 0 entries of 1 day checked', err: '' });
  });

  it('anchors each day once when several processes anchor at the same moment', async () => {
    const t = await trail();
    await t.write(daysAgo(4), 1);

    const anchored = await Promise.all([t.anchor(), t.anchor(), t.anchor()]);

    expect(anchored.reduce((sum, n) => sum + n, 0)).toBe(4);
    expect((await t.anchors()).map((anchor) => anchor.day)).toEqual([4, 3, 2, 1].map(daysAgo));
    expect((await t.cli(['audit', 'verify'])).code).toBe(0);
  });

  it('names an ended day with entries and no anchor, and refuses to change or remove an anchor', async () => {
    const t = await trail();
    await t.write(daysAgo(3), 1);
    expect(await t.cli(['audit', 'verify', '--date', daysAgo(3)])).toEqual({
      code: 1,
      out: '',
      err: `error: the audit trail of ${daysAgo(3)} is broken: its day has no anchor (the anchoring job records one after each day); 0 entries of 1 day checked`,
    });

    await t.anchor();
    expect((await t.cli(['audit', 'verify', '--date', daysAgo(3)])).code).toBe(0);
    await expect(t.sql('DELETE FROM $schema.audit_anchors WHERE day = $1', [daysAgo(3)])).rejects.toThrow(/append-only: DELETE refused/);
    await expect(t.sql('UPDATE $schema.audit_anchors SET head_seq = 9 WHERE day = $1', [daysAgo(3)])).rejects.toThrow(/append-only: UPDATE refused/);
  });

  it('names the head of a day whose chain was rewritten after its anchor, every hash after the edit recomputed', async () => {
    const t = await trail();
    await t.write(daysAgo(3), 3);
    await t.anchor();
    expect(await t.cli(['audit', 'verify', '--date', daysAgo(3)])).toEqual({ code: 0, out: 'the audit trail is intact: 3 entries of 1 day checked', err: '' });

    await t.rewrite(daysAgo(3));

    expect(await t.cli(['audit', 'verify', '--date', daysAgo(3)])).toMatchObject({
      code: 1,
      err: expect.stringMatching(
        new RegExp(
          `^error: the audit trail of ${daysAgo(3)} is broken at entry 3 \\(AuditEvent [0-9a-f-]{36}\\): its hash does not match the anchor of its day \\(the chain was rewritten\\); 3 entries of 1 day checked$`,
        ),
      ),
    });
  });

  it('names a past day whose entries and anchor a superuser removed, and exits 1', async () => {
    const t = await trail();
    for (const n of [5, 4, 3]) await t.write(daysAgo(n), 2);
    await t.anchor();
    expect((await t.cli(['audit', 'verify'])).code).toBe(0);

    await t.remove(daysAgo(4));

    const removed = `the audit trail of ${daysAgo(4)} is broken: it has no anchor, though every day from ${daysAgo(5)} on has one, an empty day too (its anchor was removed, and its entries with it if it had any)`;
    expect(await t.cli(['audit', 'verify'])).toEqual({ code: 1, out: '', err: `error: ${removed}; 2 entries of 5 days checked` });
    expect(await t.cli(['audit', 'verify', '--date', daysAgo(4)])).toEqual({ code: 1, out: '', err: `error: ${removed}; 0 entries of 1 day checked` });
  });

  it('names the day after the first anchors when those were removed, and a day whose entries alone were removed', async () => {
    const t = await trail();
    for (const n of [5, 4, 3]) await t.write(daysAgo(n), 2);
    await t.anchor();

    await t.remove(daysAgo(3), []);
    expect((await t.cli(['audit', 'verify'])).err).toBe(
      `error: the audit trail of ${daysAgo(3)} is broken: it has no entries, but it was anchored at entry 2 (its entries were removed); 4 entries of 5 days checked`,
    );

    await t.remove(daysAgo(5));
    expect((await t.cli(['audit', 'verify'])).err).toBe(
      `error: the audit trail of ${daysAgo(4)} is broken: its anchor follows an anchor the database no longer holds (the anchors before it were removed); 0 entries of 4 days checked`,
    );
  });

  it('exports the anchors to a file, and finds a day removed with every later anchor made again in the database against it', async () => {
    const t = await trail();
    for (const n of [5, 4, 3]) await t.write(daysAgo(n), 2);
    await t.anchor();
    const exported = file('anchors');

    expect(await t.cli(['audit', 'anchors', 'export', '--out', exported])).toEqual({
      code: 0,
      out: `5 anchors (${daysAgo(5)} to ${YESTERDAY}) written to ${exported}`,
      err: '',
    });
    const lines = readFileSync(exported, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [line.day, line.headSeq])).toEqual(
      [daysAgo(5), daysAgo(4), daysAgo(3), daysAgo(2), YESTERDAY].map((day, i) => [day, i < 3 ? 2 : 0]),
    );
    expect(Object.keys(lines[0]!).sort()).toEqual(['day', 'hash', 'headHash', 'headSeq', 'kekId', 'mac', 'previousHash']);
    expect(await t.cli(['audit', 'verify', '--anchors', exported])).toEqual({
      code: 0,
      out: `the audit trail is intact: 6 entries of 5 days checked; the database holds the 5 anchors of ${exported}`,
      err: '',
    });

    // Whoever holds the database and the key removes a day and anchors every day after it again: the database alone agrees with itself.
    await t.remove(daysAgo(4), [4, 3, 2, 1].map(daysAgo));
    expect(await t.anchor()).toBe(4);
    expect((await t.cli(['audit', 'verify'])).code).toBe(0);

    expect(await t.cli(['audit', 'verify', '--anchors', exported])).toEqual({
      code: 1,
      out: '',
      err: `error: the audit trail of ${daysAgo(4)} is broken: its anchor is not the one exported to ${exported} (head entry, head hash, hash and MAC differ): the day or its anchor was rewritten; 2 entries of 5 days checked`,
    });
  });

  it('answers the command line with one line and its exit code', async () => {
    const t = await trail();
    await t.write(daysAgo(3), 1);
    await t.anchor();
    const exported = file('since');

    expect(await t.cli(['audit', 'anchors', 'export', '--since', daysAgo(2), '--out', exported])).toEqual({
      code: 0,
      out: `2 anchors (${daysAgo(2)} to ${YESTERDAY}) written to ${exported}`,
      err: '',
    });
    expect(await t.cli(['audit', 'anchors', 'export', '--out', exported])).toEqual({
      code: 1,
      out: '',
      err: `error: ${exported} already exists: an export is never overwritten, name a new file`,
    });
    const none = file('none');
    expect(await t.cli(['audit', 'anchors', 'export', '--since', '2999-01-01', '--out', none])).toEqual({
      code: 0,
      out: `no anchors since 2999-01-01; an empty ${none} written`,
      err: '',
    });
    expect(existsSync(none)).toBe(true);
    expect(await t.cli(['audit', 'anchors', 'export', '--since', '2026-02-30', '--out', file('x')])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^error: --since must be a day written YYYY-MM-DD, got "2026-02-30"; see npm run admin -- audit anchors --help$/),
    });
    expect(await t.cli(['audit', 'anchors', 'export'])).toMatchObject({ code: 2, err: expect.stringContaining('--out') });

    const missing = join(scratch, 'missing.jsonl');
    expect(await t.cli(['audit', 'verify', '--anchors', missing])).toMatchObject({
      code: 1,
      out: '',
      err: expect.stringMatching(new RegExp(`^error: cannot read ${missing}: ENOENT`)),
    });
    const garbled = file('garbled');
    writeFileSync(garbled, `${readFileSync(exported, 'utf8')}{"day":"2026-01-01"}\n`);
    expect(await t.cli(['audit', 'verify', '--anchors', garbled])).toEqual({
      code: 1,
      out: '',
      err: `error: line 3 of ${garbled} is not an exported anchor (headSeq, headHash, previousHash, hash, kekId, mac)`,
    });
    expect(await t.cli(['audit', 'anchors', 'export', '--since', daysAgo(2), '--out=-'])).toEqual({
      code: 0,
      out: readFileSync(exported, 'utf8').trimEnd(),
      err: `2 anchors (${daysAgo(2)} to ${YESTERDAY}) written to standard output`,
    });
    expect((await t.cli(['audit', '--help'])).out).toContain('audit anchors export [--since YYYY-MM-DD] --out <file>|-');
  });

  it('verifies the anchors of the release before, which name no anchor before them, and chains the first day after them to the last of them', async () => {
    const t = await trail();
    const legacyDay = daysAgo(6);
    await t.write(legacyDay, 3);
    // As the release before anchored an ended day: its head and an HMAC over it, nothing more.
    const [head] = await t.sql<{ seq: number; hash: string }>('SELECT seq, hash FROM $schema.audit_events WHERE day = $1 ORDER BY seq DESC LIMIT 1', [
      legacyDay,
    ]);
    const key = t.keks.derivedKey('audit-anchor')!;
    const mac = createHmac('sha256', key).update(`bedrequest-audit-anchor:${legacyDay}:${head!.seq}:${head!.hash}`, 'utf8').digest('hex');
    await t.sql('INSERT INTO $schema.audit_anchors (day, head_seq, head_hash, kek_id, mac) VALUES ($1, $2, $3, $4, $5)', [
      legacyDay,
      head!.seq,
      head!.hash,
      t.keks.current.id,
      mac,
    ]);
    await t.write(daysAgo(4), 1);

    expect(await t.anchor()).toBe(5);
    const anchors = await t.anchors();
    expect(anchors.map((anchor) => [anchor.day, anchor.previous_hash === null])).toEqual([
      [legacyDay, true],
      ...[5, 4, 3, 2, 1].map((n) => [daysAgo(n), false]),
    ]);
    expect(anchors[1]!.previous_hash).not.toBe(ZEROS);
    expect(await t.cli(['audit', 'verify'])).toEqual({ code: 0, out: 'the audit trail is intact: 4 entries of 6 days checked', err: '' });

    await t.remove(legacyDay);
    expect((await t.cli(['audit', 'verify'])).err).toContain(
      `the audit trail of ${daysAgo(5)} is broken: its anchor follows an anchor the database no longer holds`,
    );
  });
});
