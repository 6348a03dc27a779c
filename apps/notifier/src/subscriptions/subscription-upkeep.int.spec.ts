import { randomUUID } from 'node:crypto';
import { testEnvironment } from '@bedrequest/testing';
import { notifierTables, openNotifierDatabase, type NotifierDatabase } from '../persistence/database';
import { sealedFor } from '../persistence/sealed-fields';
import { openNotifierStore, incomingEvent, type NotifierStore } from '../testing/notifier-store';
import { claimDueHeartbeats } from './subscription-upkeep';

const env = testEnvironment();

/** Heartbeat claims and the previous secret's lifetime, against the real PostgreSQL. */
describe('subscription upkeep: heartbeat claims and rotated secrets', () => {
  let db: NotifierStore;
  let second: NotifierDatabase;

  beforeAll(async () => {
    db = await openNotifierStore(env.databaseUrl);
    // A second notifier's connection pool on the same schema.
    second = await openNotifierDatabase({ databaseUrl: env.databaseUrl, schema: db.schema, poolSize: 4 });
  });

  afterAll(async () => {
    await second.$disconnect();
    await db.close();
  });

  const tables = () => notifierTables(db.schema);
  const claim = (prisma: NotifierDatabase) => claimDueHeartbeats(prisma, tables(), db.fields, 100);
  /** Claims until nothing is due: a test leaves no heartbeat of its own due for the next. */
  const drain = async () => {
    while ((await claim(db.prisma)).length > 0);
  };
  const withHeartbeat = async (seconds: number) => {
    const partyId = `referrer-${randomUUID()}`;
    const created = await db.subscriptions.createIfAbsent(
      { id: randomUUID(), partyId, eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/hook', secret: 'whsec_c2VjcmV0' },
      { heartbeatSeconds: seconds },
    );
    return { partyId, id: created!.id };
  };
  const makeDue = (id: string) => db.pool.query(`UPDATE "${db.schema}".subscription SET heartbeat_due_at = now() - interval '1 second' WHERE id = $1`, [id]);
  const dueAt = async (id: string) =>
    (await db.pool.query<{ due: Date | null }>(`SELECT heartbeat_due_at AS due FROM "${db.schema}".subscription WHERE id = $1`, [id])).rows[0]!.due;

  beforeEach(drain);

  it('is not due before its interval, then claimed by exactly one of many concurrent claims (two connection pools), and due again an interval later', async () => {
    const { id } = await withHeartbeat(3600);
    expect(await claim(db.prisma)).toEqual([]);

    await makeDue(id);
    const claims = await Promise.all([...Array(4)].flatMap(() => [claim(db.prisma), claim(second)]));

    const mine = claims.flat().filter((heartbeat) => heartbeat.subscriptionId === id);
    expect(mine).toEqual([
      { subscriptionId: id, eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/hook', lastSequence: 0, secrets: ['whsec_c2VjcmV0'] },
    ]);
    const next = (await dueAt(id))!.getTime();
    expect(next).toBeGreaterThan(Date.now() + 3590_000);
    expect(next).toBeLessThan(Date.now() + 3610_000);
  });

  it('carries the latest sequence number, and sends nothing while a delivery was made within the interval (due an interval after it)', async () => {
    const { partyId, id } = await withHeartbeat(600);
    const events = [incomingEvent(partyId, 'request-1'), incomingEvent(partyId, 'request-2')];
    await db.events.recordAll(events);
    await db.pool.query(
      `UPDATE "${db.schema}".delivery SET status = 'delivered', delivered_at = now() - interval '100 seconds', next_attempt_at = NULL WHERE event_id = $1`,
      [events[0]!.eventId],
    );
    await makeDue(id);

    expect((await claim(db.prisma)).filter((heartbeat) => heartbeat.subscriptionId === id)).toEqual([]);
    const deferred = (await dueAt(id))!.getTime();
    expect(Math.abs(deferred - (Date.now() + 500_000))).toBeLessThan(5_000);

    await db.pool.query(`UPDATE "${db.schema}".delivery SET delivered_at = now() - interval '700 seconds' WHERE event_id = $1`, [events[0]!.eventId]);
    await makeDue(id);
    expect((await claim(db.prisma)).filter((heartbeat) => heartbeat.subscriptionId === id).map((heartbeat) => heartbeat.lastSequence)).toEqual([2]);
    await db.pool.query(`DELETE FROM "${db.schema}".delivery WHERE subscription_id = $1`, [id]);
  });

  it('sends none for a disabled subscription nor after heartbeats were turned off', async () => {
    const { partyId, id } = await withHeartbeat(60);
    await makeDue(id);
    await db.pool.query(`UPDATE "${db.schema}".subscription SET status = 'disabled' WHERE id = $1`, [id]);
    expect((await claim(db.prisma)).map((heartbeat) => heartbeat.subscriptionId)).not.toContain(id);

    await db.subscriptions.changeAddress({ partyId, id }, 'http://127.0.0.1:9/hook', { heartbeatSeconds: null });
    expect(await db.subscriptions.find(partyId, id)).toMatchObject({ heartbeatSeconds: null, status: 'active' });
    expect(await dueAt(id)).toBeNull();
    expect((await claim(db.prisma)).map((heartbeat) => heartbeat.subscriptionId)).not.toContain(id);
  });

  it('keeps the rotated-out secret sealed for its own column, signs with both while the overlap runs, and deletes it afterwards', async () => {
    const { partyId, id } = await withHeartbeat(60);
    const rotated = await db.subscriptions.rotateSecret(partyId, id, 'whsec_bmV3LXNlY3JldA==', 60_000);
    expect(rotated).toMatchObject({ secret: 'whsec_bmV3LXNlY3JldA==', previousSecretExpiresAt: expect.any(Date) });
    const [row] = (
      await db.pool.query<{ sealed_previous_secret: Buffer }>(`SELECT sealed_previous_secret FROM "${db.schema}".subscription WHERE id = $1`, [id])
    ).rows;
    // Sealed, and only for its own column: it does not open as the current secret.
    expect(row!.sealed_previous_secret.toString('latin1')).not.toContain('c2VjcmV0');
    await expect(db.fields.keyring.openText(row!.sealed_previous_secret, sealedFor.secret(id))).rejects.toThrow();
    await expect(db.fields.openPreviousSecret(id, row!.sealed_previous_secret)).resolves.toBe('whsec_c2VjcmV0');

    await makeDue(id);
    expect((await claim(db.prisma)).find((heartbeat) => heartbeat.subscriptionId === id)?.secrets).toEqual(['whsec_bmV3LXNlY3JldA==', 'whsec_c2VjcmV0']);
    expect(await db.subscriptions.deleteExpiredPreviousSecrets()).toBe(0);

    await db.pool.query(`UPDATE "${db.schema}".subscription SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    // Expired and not yet deleted: neither used nor shown.
    await makeDue(id);
    expect((await claim(db.prisma)).find((heartbeat) => heartbeat.subscriptionId === id)?.secrets).toEqual(['whsec_bmV3LXNlY3JldA==']);
    expect(await db.subscriptions.find(partyId, id)).toMatchObject({ previousSecretExpiresAt: null });
    expect(await db.subscriptions.deleteExpiredPreviousSecrets()).toBe(1);
    const { rows } = await db.pool.query(`SELECT sealed_previous_secret, previous_secret_expires_at FROM "${db.schema}".subscription WHERE id = $1`, [id]);
    expect(rows).toEqual([{ sealed_previous_secret: null, previous_secret_expires_at: null }]);
  });
});
