import { randomBytes } from 'node:crypto';
import { DataKeyring, type UnavailableDataKey } from './data-keyring';
import { KEK_BYTES, KeyEncryptionKeys, keyEncryptionKey, type KeyEncryptionKey } from './key-encryption-keys';
import { SqlKeyStore, type DevelopmentKekStore, type SqlClient } from './key-store';

/** The key variables of a service's configuration (`dataKeyEnv` of @bedrequest/config). */
export interface DataKeyConfig {
  NODE_ENV: 'development' | 'test' | 'production';
  /** Base64 of 32 random bytes. */
  DATA_KEK?: string | undefined;
  DATA_KEK_ID?: string | undefined;
  /** KEKs that still unwrap data keys after a rotation. */
  DATA_PREVIOUS_KEKS?: readonly { id?: string | undefined; key: string }[] | undefined;
}

export class KeyConfigError extends Error {
  override name = 'KeyConfigError';
}

/**
 * The KEKs of `config`: DATA_KEK and DATA_PREVIOUS_KEKS; outside production, the development KEKs
 * kept in the service's schema too (generated on the first start without DATA_KEK, then the
 * current one while DATA_KEK stays unset; after DATA_KEK is set they still open what they wrapped).
 * Production refuses to start without DATA_KEK; the config says so first (requireDataKekInProduction).
 */
export async function keyEncryptionKeysOf(
  config: DataKeyConfig,
  developmentKeks: DevelopmentKekStore,
): Promise<{ keks: KeyEncryptionKeys; development: boolean }> {
  const previous = (config.DATA_PREVIOUS_KEKS ?? []).map((entry) => keyEncryptionKey(Buffer.from(entry.key, 'base64'), entry.id));
  if (config.NODE_ENV === 'production') {
    if (!config.DATA_KEK) throw new KeyConfigError('DATA_KEK is required in production (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)');
    return { keks: new KeyEncryptionKeys(configured(config.DATA_KEK, config.DATA_KEK_ID), previous), development: false };
  }
  let stored = await developmentKeks.developmentKeks();
  if (config.DATA_KEK) {
    const kept = stored.map((entry) => keyEncryptionKey(entry.key, entry.id));
    return { keks: new KeyEncryptionKeys(configured(config.DATA_KEK, config.DATA_KEK_ID), [...previous, ...kept]), development: false };
  }
  if (stored.length === 0) {
    const key = randomBytes(KEK_BYTES);
    await developmentKeks.addDevelopmentKek(keyEncryptionKey(key).id.replace(/^kek-/, 'development-'), key);
    // Two replicas starting at once may each store one; both go on with the oldest.
    stored = await developmentKeks.developmentKeks();
  }
  const [oldest, ...others] = stored.map((entry) => keyEncryptionKey(entry.key, entry.id));
  if (!oldest) throw new Error('the development key-encryption key was stored but cannot be read back');
  return { keks: new KeyEncryptionKeys(oldest, [...previous, ...others]), development: true };
}

/**
 * A service's keyring on its schema: KEKs from `config` (or the development KEK), data keys in the
 * schema's `data_key` table through `sql`. `development` says that the development KEK is in use,
 * `unavailable` names data keys no KEK held unwraps (ids only), for the service's start-up log.
 */
export async function openDataKeyring(
  config: DataKeyConfig,
  options: { sql: SqlClient; schema: string; onRefreshFailed?: (error: unknown) => void },
): Promise<{ keyring: DataKeyring; development: boolean; unavailable: UnavailableDataKey[] }> {
  const store = new SqlKeyStore(options.sql, options.schema);
  const { keks, development } = await keyEncryptionKeysOf(config, store);
  const { keyring, unavailable } = await DataKeyring.load({ keks, store, ...(options.onRefreshFailed ? { onRefreshFailed: options.onRefreshFailed } : {}) });
  return { keyring, development, unavailable };
}

function configured(base64: string, id: string | undefined): KeyEncryptionKey {
  return keyEncryptionKey(Buffer.from(base64, 'base64'), id);
}

/** The lines a service logs about its data keys (a pino logger is one). */
export interface DataKeyLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Starts a service's opened data keyring: it looks for new data keys every
 * `DATA_KEY_REFRESH_INTERVAL_MS`, and what an operator must know is logged once now (the
 * development KEK in use; data keys that do not unwrap). Returns what stops the refreshing.
 */
export function startDataKeyring(
  opened: { keyring: DataKeyring; development: boolean; unavailable: readonly UnavailableDataKey[] },
  logger: DataKeyLogger,
): () => Promise<void> {
  const { keyring, development, unavailable } = opened;
  keyring.startRefreshing();
  if (development) logger.warn({ kekId: keyring.keks.current.id }, 'encrypting data at rest with the development key (DATA_KEK not set)');
  for (const key of unavailable) {
    logger.error(
      { dataKeyId: key.id, kekId: key.kekId },
      'a data key does not unwrap: what it sealed stays unreadable until its key-encryption key is in DATA_PREVIOUS_KEKS',
    );
  }
  return async () => keyring.stop();
}
