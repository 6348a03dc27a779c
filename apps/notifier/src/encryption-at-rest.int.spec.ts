import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { declareTopology, messageCatalog } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { dumpSchemas, formsOf, WebhookReceiver, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { NOTIFIER_CLI, openNotifierKeys } from './cli';
import { NotifierCliConfig } from './config';
import { startNotifier, type RunningNotifier } from './start';
import { SubscriptionsApi, notifierConfig, notifierEnvironment, publishResponse, removeTopology, requestIdentifier } from './testing/notifier-test-kit';

const env = testEnvironment();
const newKek = () => randomBytes(32).toString('base64');

/**
 * The notifier's schema as a copy of the database would show it, and the same schema across a
 * rotation of the key-encryption key: a production-mode notifier (DATA_KEK required) is started,
 * stopped and started again on one schema with other keys, as an operator would roll it.
 */
describe("the notifier's data at rest", () => {
  const namespace = uniqueName('notifier');
  const schema = uniqueName('notifier');
  const topology = declareTopology(namespace);
  const keks = { a: newKek(), b: newKek() };
  const receiver = new WebhookReceiver();
  let authority: TestAuthority;
  let client: Broker;
  let pool: Pool;
  let running: RunningNotifier | undefined;

  /** A notifier on the test's schema with these key variables, the one running until the next `start`. */
  const start = async (keys: Record<string, string>): Promise<SubscriptionsApi> => {
    await running?.stop();
    // Production's key rules; the receiver is plain http on loopback.
    const settings = { NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_REQUIRE_HTTPS: 'false', ...keys };
    running = await startNotifier(notifierConfig(notifierEnvironment({ namespace, schema, authority, settings })));
    return new SubscriptionsApi(running.url, authority);
  };
  /** `npm run admin -- notifier ...` on the test's schema, with these key variables. */
  const admin = async (keys: Record<string, string>, ...argv: string[]): Promise<string[]> => {
    const out: string[] = [];
    const err: string[] = [];
    const config = NotifierCliConfig.parse({ NODE_ENV: 'production', DATABASE_URL: env.databaseUrl, NOTIFIER_DB_SCHEMA: schema, ...keys });
    const code = await NOTIFIER_CLI.run(['notifier', ...argv], {
      open: () => openNotifierKeys(config),
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    if (code !== 0) throw new Error(`notifier ${argv.join(' ')} failed: ${err.join(' ')}`);
    return out;
  };
  /** Each sealed row's data key (bytes 2-17 of the value). */
  const keysInUse = async () => {
    const { rows } = await pool.query<{ key: string; rows: number }>(
      `SELECT encode(substring(sealed_secret FROM 2 FOR 16), 'hex') AS key, count(*)::int AS rows FROM "${schema}".subscription GROUP BY 1
       UNION ALL SELECT encode(substring(sealed_previous_secret FROM 2 FOR 16), 'hex'), count(*)::int FROM "${schema}".subscription
                  WHERE sealed_previous_secret IS NOT NULL GROUP BY 1
       UNION ALL SELECT encode(substring(sealed_data FROM 2 FOR 16), 'hex'), count(*)::int FROM "${schema}".delivery GROUP BY 1`,
    );
    return new Set(rows.map((row) => row.key.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')));
  };
  const dataKeys = async () => (await pool.query<{ id: string; kek_id: string }>(`SELECT id::text, kek_id FROM "${schema}".data_key ORDER BY created_at`)).rows;
  /** Publishes an AdmissionResponse with a clinic note and waits for its webhook; returns the event id. */
  const deliver = async (party: string, note: string) => {
    const before = receiver.accepted().length;
    const eventId = await publishResponse(client, { partyId: party, requestIdentifier: requestIdentifier(), notes: [note] });
    await waitFor(() => receiver.accepted().length > before, { what: 'the webhook' });
    const webhook = receiver.accepted().at(-1)!;
    expect({ id: webhook.id, verified: webhook.verified, note: (webhook.body.data as { note?: { text: string }[] }).note?.[0]?.text }).toEqual({
      id: eventId,
      verified: true,
      note,
    });
    return eventId;
  };

  beforeAll(async () => {
    authority = await TestAuthority.start();
    client = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 5 });
    await client.start();
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    await receiver.start();
  });

  afterAll(async () => {
    await running?.stop();
    await receiver.stop();
    await client.stop();
    await authority.stop();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
    await removeTopology(topology);
  });

  const party = `referrer-${randomUUID()}`;
  const firstNote = `Patientin braucht ein rollstuhlgerechtes Zimmer, Allergie gegen Penicillin (${randomUUID()})`;
  let subscriptionId = '';
  let firstEvent = '';

  it('keeps neither the webhook secret (nor the one a rotation replaced) nor anything of the Task in clear: a pg_dump of the schema holds none', async () => {
    const api = await start({ DATA_KEK: keks.a, DATA_KEK_ID: 'kek-a' });
    const subscription = await api.subscribe(party, receiver.url);
    ({ id: subscriptionId } = subscription);
    // The first secret is kept, sealed, as the previous one for the overlap (docs/webhooks.md, "Rotating the secret").
    const rotated = await api.call<{ secret: string }>(party, 'POST', `/${subscriptionId}/rotate-secret`);
    receiver.secret = rotated.body.secret;
    firstEvent = await deliver(party, firstNote);
    expect(String(receiver.accepted().at(-1)!.headers['webhook-signature']).split(' ')).toHaveLength(2);

    const dump = await dumpSchemas(env.databaseUrl, [schema]);
    // The rows are there, with their ids in clear ...
    expect(dump).toContain(firstEvent);
    expect(dump).toContain(subscriptionId);
    // ... but not the secret (nor its key bytes), nor the note, in any form a dump could show them in.
    for (const secret of [
      subscription.secret,
      subscription.secret.slice('whsec_'.length),
      rotated.body.secret.slice('whsec_'.length),
      firstNote,
      'Penicillin',
    ]) {
      for (const form of formsOf(secret)) expect({ form, found: dump.includes(form) }).toEqual({ form, found: false });
    }
    // The search could find them: values are in the dump, text as it is and bytea as hex (here the
    // header of a sealed value: version 1 and the data key's id).
    expect(dump).toContain(receiver.url);
    expect(dump).toContain(`\\x01${(await dataKeys())[0]!.id.replace(/-/g, '')}`);
  });

  it('after a new DATA_KEK, seals under a new data key while what the old one sealed still opens', async () => {
    const before = await keysInUse();
    const api = await start({ DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b', DATA_PREVIOUS_KEKS: `kek-a:${keks.a}` });

    // Written under kek-a, read under kek-b: the secret signs the next webhook, the old Task is served.
    expect((await api.get(party, subscriptionId)).secret).toBe(receiver.secret);
    const { body } = await api.eventsSince(party, subscriptionId, 0);
    expect(body.items.map((event) => [event.id, (event.data as { note: { text: string }[] }).note[0]!.text])).toEqual([[firstEvent, firstNote]]);
    await deliver(party, 'zweite Antwort');

    expect((await dataKeys()).map((key) => key.kek_id)).toEqual(['kek-a', 'kek-b']);
    const [, newKey] = await dataKeys();
    expect(await keysInUse()).toEqual(new Set([...before, newKey!.id]));
  });

  it('the re-encrypt command re-wraps the old data key and moves every row to the new one, reporting progress; the old KEK can then go', async () => {
    const keys = { DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b', DATA_PREVIOUS_KEKS: `kek-a:${keks.a}` };

    const lines = await admin(keys, 'reencrypt', '--batch-size', '1');

    const [oldKey, newKey] = await dataKeys();
    expect(lines).toEqual([
      `data key ${oldKey!.id}: re-wrapped from kek-a to kek-b`,
      'data keys: 1 re-wrapped under kek-b',
      `subscription.sealed_secret: 1 row to seal under data key ${newKey!.id}`,
      'subscription.sealed_secret: 1 of 1 (100 %), 1 re-encrypted',
      'subscription.sealed_secret: done, 1 re-encrypted',
      `subscription.sealed_previous_secret: 1 row to seal under data key ${newKey!.id}`,
      'subscription.sealed_previous_secret: 1 of 1 (100 %), 1 re-encrypted',
      'subscription.sealed_previous_secret: done, 1 re-encrypted',
      `delivery.sealed_data: 1 row to seal under data key ${newKey!.id}`,
      'delivery.sealed_data: 1 of 1 (100 %), 1 re-encrypted',
      'delivery.sealed_data: done, 1 re-encrypted',
    ]);
    expect(await dataKeys()).toEqual([oldKey, newKey].map((key) => ({ ...key, kek_id: 'kek-b' })));
    expect(await keysInUse()).toEqual(new Set([newKey!.id]));

    // Without kek-a the notifier reads everything.
    const api = await start({ DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b' });
    expect((await api.get(party, subscriptionId)).secret).toBe(receiver.secret);
    const { body } = await api.eventsSince(party, subscriptionId, 0);
    expect(body.items.map((event) => (event.data as { note: { text: string }[] }).note[0]!.text)).toEqual([firstNote, 'zweite Antwort']);
    expect(await admin({ DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b' }, 'keys')).toEqual([
      'key-encryption keys: kek-b (current)',
      expect.stringMatching(new RegExp(`^data key ${oldKey!.id}  wrapped by kek-b  created \\S+  rows: none$`)),
      expect.stringMatching(
        new RegExp(
          `^data key ${newKey!.id}  wrapped by kek-b  created \\S+  \\(current\\)  rows: subscription.sealed_secret 1, subscription.sealed_previous_secret 1, delivery.sealed_data 2$`,
        ),
      ),
    ]);
  });

  it('a new data key from the admin command seals what comes next; what the older one sealed still opens', async () => {
    const keys = { DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b' };
    const [made] = await admin(keys, 'new-data-key');
    const newKey = /^data key (\S+) made under kek-b/.exec(made!)![1]!;
    // A running notifier takes it up within DATA_KEY_REFRESH_INTERVAL_MS (a minute); a restarted one at once.
    const api = await start(keys);
    await deliver(party, 'dritte Antwort');
    expect(await keysInUse()).toContain(newKey);
    const { body } = await api.eventsSince(party, subscriptionId, 0);
    expect(body.items.map((event) => (event.data as { note: { text: string }[] }).note[0]!.text)).toEqual([firstNote, 'zweite Antwort', 'dritte Antwort']);
  });
});
