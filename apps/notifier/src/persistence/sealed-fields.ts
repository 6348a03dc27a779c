import { SqlSealedColumn, openDataKeyring, type DataKeyConfig, type DataKeyring, type SqlClient, type UnavailableDataKey } from '@bedrequest/crypto';
import type { NotifierDatabase } from './database';

/**
 * What each sealed value is sealed for: its table, column and primary key (the additional data of
 * AES-GCM), so that a value copied to another row does not open there.
 */
export const sealedFor = {
  secret: (subscriptionId: string) => `subscription:secret:${subscriptionId}`,
  /** The secret before a rotation, during its overlap (docs/webhooks.md, "Rotating the secret"). */
  previousSecret: (subscriptionId: string) => `subscription:previous-secret:${subscriptionId}`,
  data: (eventId: string) => `delivery:data:${eventId}`,
};

/**
 * A Task to be opened for delivery: sealed as its row holds it, or in clear as the process received
 * it (an event handed to the worker by the statement that stored it).
 */
export interface StoredValue<Clear> {
  sealed: Uint8Array | null;
  clear: Clear | null;
}

/**
 * How the repositories store the values that must not lie in clear in the notifier's schema
 * (docs/data-protection.md): the webhook secret of a subscription and the Task of an event (its
 * notes may describe the patient). Ids, sequence numbers, states, dates, addresses and the delivery
 * log's status codes stay in clear: they are what the statements search and order by, and say
 * nothing about the patient.
 */
export interface ProtectedFields {
  sealSecret(subscriptionId: string, secret: string): Uint8Array<ArrayBuffer>;
  openSecret(subscriptionId: string, sealed: Uint8Array | null): Promise<string>;
  sealPreviousSecret(subscriptionId: string, secret: string): Uint8Array<ArrayBuffer>;
  openPreviousSecret(subscriptionId: string, sealed: Uint8Array): Promise<string>;
  sealData(eventId: string, data: unknown): Uint8Array<ArrayBuffer>;
  openData(eventId: string, stored: StoredValue<unknown>): Promise<unknown>;
}

/**
 * Opened secrets kept per subscription: every webhook is signed with its subscription's secret, and
 * opening it again for each one cost about 15 µs. Bounded (the oldest entry goes), and a secret is
 * served only for the very bytes it was opened from.
 */
const OPENED_SECRETS = 10_000;

/** ProtectedFields sealed with the notifier's data keys (libs/crypto): the service's only kind. */
export class SealedFields implements ProtectedFields {
  private readonly openedSecrets = new Map<string, { sealed: Buffer; secret: string }>();

  constructor(readonly keyring: DataKeyring) {}

  sealSecret(subscriptionId: string, secret: string): Buffer<ArrayBuffer> {
    return this.keyring.seal(secret, sealedFor.secret(subscriptionId));
  }

  async openSecret(subscriptionId: string, stored: Uint8Array | null): Promise<string> {
    if (!stored) throw new Error(`subscription ${subscriptionId} has no secret`);
    return this.openCached(sealedFor.secret(subscriptionId), stored);
  }

  sealPreviousSecret(subscriptionId: string, secret: string): Buffer<ArrayBuffer> {
    return this.keyring.seal(secret, sealedFor.previousSecret(subscriptionId));
  }

  openPreviousSecret(subscriptionId: string, stored: Uint8Array): Promise<string> {
    return this.openCached(sealedFor.previousSecret(subscriptionId), stored);
  }

  sealData(eventId: string, data: unknown): Buffer<ArrayBuffer> {
    return this.keyring.sealJson(data, sealedFor.data(eventId));
  }

  async openData(eventId: string, stored: StoredValue<unknown>): Promise<unknown> {
    if (stored.sealed) return this.keyring.openJson(stored.sealed, sealedFor.data(eventId));
    if (stored.clear !== null) return stored.clear;
    throw new Error(`event ${eventId} has no data`);
  }

  /** Keyed by what the value is sealed for: a subscription's secret and its previous one are two entries. */
  private async openCached(context: string, stored: Uint8Array): Promise<string> {
    const sealed = Buffer.from(stored);
    const known = this.openedSecrets.get(context);
    if (known?.sealed.equals(sealed)) return known.secret;
    const secret = await this.keyring.openText(sealed, context);
    this.openedSecrets.delete(context);
    const oldest = this.openedSecrets.keys().next();
    if (this.openedSecrets.size >= OPENED_SECRETS && !oldest.done) this.openedSecrets.delete(oldest.value);
    this.openedSecrets.set(context, { sealed, secret });
    return secret;
  }
}

/** Raw statements through the notifier's Prisma client, for the key tables of @bedrequest/crypto. */
export function sqlClientOf(prisma: NotifierDatabase): SqlClient {
  return { query: <Row>(sql: string, values: unknown[]) => prisma.$queryRawUnsafe<Row[]>(sql, ...values) };
}

/** The notifier's data keys in its schema, with the KEKs of `config` (or the development KEK). */
export async function openSealedFields(
  config: DataKeyConfig & { NOTIFIER_DB_SCHEMA: string },
  prisma: NotifierDatabase,
  onRefreshFailed?: (error: unknown) => void,
): Promise<{ fields: SealedFields; development: boolean; unavailable: UnavailableDataKey[] }> {
  const { keyring, development, unavailable } = await openDataKeyring(config, {
    sql: sqlClientOf(prisma),
    schema: config.NOTIFIER_DB_SCHEMA,
    ...(onRefreshFailed ? { onRefreshFailed } : {}),
  });
  return { fields: new SealedFields(keyring), development, unavailable };
}

/** The sealed columns, for `notifier keys` and `notifier reencrypt`; `sql` must pass arrays of bytea values unchanged (`openPlainSql`). */
export function sealedColumnsOf(sql: SqlClient, schema: string): SqlSealedColumn[] {
  return [
    new SqlSealedColumn({ sql, schema, table: 'subscription', key: { column: 'id', type: 'uuid' }, sealed: 'sealed_secret', context: sealedFor.secret }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'subscription',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_previous_secret',
      context: sealedFor.previousSecret,
    }),
    new SqlSealedColumn({ sql, schema, table: 'delivery', key: { column: 'event_id', type: 'uuid' }, sealed: 'sealed_data', context: sealedFor.data }),
  ];
}
