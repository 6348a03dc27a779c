import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { FingerprintKey } from './fingerprint';
import { DataKeyUnavailableError, type KeyEncryptionKeys } from './key-encryption-keys';
import type { DataKeyStore, FingerprintKeyStore, WrappedDataKey } from './key-store';
import { DATA_KEY_BYTES, dataKeyIdOf, openWith, sealWith, type DataKey } from './sealed-value';

/** How often a keyring looks again which data key is current: a new one is used within this time. */
export const DATA_KEY_REFRESH_INTERVAL_MS = 60_000;

/** A data key of the table whose KEK this process does not hold (named by ids only). */
export interface UnavailableDataKey {
  id: string;
  kekId: string;
  reason: string;
}

/**
 * A service's data keys, unwrapped in memory: seals new values under the current data key (the
 * newest one wrapped by the current KEK) and opens values sealed under any data key of the
 * service's `data_key` table whose KEK it holds.
 *
 * Rotation without downtime: a process that starts with a new DATA_KEK finds no data key wrapped
 * by it and makes one, which seals every value from then on; `createDataKey` (an admin command)
 * makes a new data key under the current KEK, which running processes take up within
 * `DATA_KEY_REFRESH_INTERVAL_MS` (`startRefreshing`). Values sealed under older keys still open: a
 * data key this process has not seen yet (made by another process) is read from the table on
 * first use.
 *
 * A service that recognises values by keyed hashes also takes its fingerprint key from here
 * (`fingerprintKey`, fingerprint.ts): read, or made, on first use, so that a service without one
 * never reads its table.
 */
export class DataKeyring {
  private readonly keys = new Map<string, DataKey>();
  private readonly loading = new Map<string, Promise<DataKey>>();
  private current: DataKey;
  private timer?: NodeJS.Timeout;
  private fingerprints?: Promise<FingerprintKey>;

  private constructor(
    readonly keks: KeyEncryptionKeys,
    private readonly store: DataKeyStore & FingerprintKeyStore,
    current: DataKey,
    private readonly onRefreshFailed: (error: unknown) => void,
  ) {
    this.current = current;
    this.keys.set(current.id, current);
  }

  /**
   * Loads the data keys the KEKs unwrap and takes the current one, making it first when the
   * current KEK wraps none yet. Data keys it cannot unwrap are listed in `unavailable` (a KEK
   * removed from DATA_PREVIOUS_KEKS too early): values sealed under them cannot be opened.
   */
  static async load(options: {
    keks: KeyEncryptionKeys;
    store: DataKeyStore & FingerprintKeyStore;
    onRefreshFailed?: (error: unknown) => void;
  }): Promise<{ keyring: DataKeyring; unavailable: UnavailableDataKey[] }> {
    const { keks, store } = options;
    const current = (await store.newestWrappedBy(keks.current.id)) ?? (await addDataKey(keks, store));
    const keyring = new DataKeyring(keks, store, unwrapped(keks, current), options.onRefreshFailed ?? (() => undefined));
    const unavailable: UnavailableDataKey[] = [];
    for (const stored of await store.all()) {
      try {
        keyring.keys.set(stored.id, unwrapped(keks, stored));
      } catch (error) {
        unavailable.push({ id: stored.id, kekId: stored.kekId, reason: (error as Error).message });
      }
    }
    return { keyring, unavailable };
  }

  /** The id of the data key new values are sealed under. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** Seals `plaintext` (UTF-8 when a string) for `context`, the row and column it is stored in: `table:column:primary key`. */
  seal(plaintext: Uint8Array | string, context: string): Buffer<ArrayBuffer> {
    return sealWith(this.current, typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext, context);
  }

  /** Seals the JSON text of `value`. */
  sealJson(value: unknown, context: string): Buffer<ArrayBuffer> {
    return this.seal(JSON.stringify(value), context);
  }

  /** The plaintext of a value sealed for `context`, under any data key of the service. */
  async open(sealed: Uint8Array, context: string): Promise<Buffer> {
    return openWith(await this.dataKey(dataKeyIdOf(sealed)), sealed, context);
  }

  async openText(sealed: Uint8Array, context: string): Promise<string> {
    return (await this.open(sealed, context)).toString('utf8');
  }

  async openJson<T = unknown>(sealed: Uint8Array, context: string): Promise<T> {
    return JSON.parse(await this.openText(sealed, context)) as T;
  }

  /**
   * Makes a new data key under the current KEK; it seals from now on in this process, and in the
   * others once they refresh. Returns its id.
   */
  async createDataKey(): Promise<string> {
    const added = await addDataKey(this.keks, this.store);
    this.use(unwrapped(this.keks, added));
    return added.id;
  }

  /**
   * The service's fingerprint key, unwrapped: the one in its `fingerprint_key` table, made (under
   * the current KEK) when there is none yet. Replicas making it at once all take the one stored
   * first. It never changes while the process runs. Fails (and is tried again at the next call)
   * when its KEK is not configured: fingerprints made with another key would recognise nothing.
   */
  fingerprintKey(): Promise<FingerprintKey> {
    this.fingerprints ??= loadFingerprintKey(this.keks, this.store).catch((error: unknown) => {
      this.fingerprints = undefined;
      throw error;
    });
    return this.fingerprints;
  }

  /** Looks again which data key is current (a new one, made by an admin command or another process). */
  async refresh(): Promise<void> {
    const newest = await this.store.newestWrappedBy(this.keks.current.id);
    if (newest && newest.id !== this.current.id) this.use(this.keys.get(newest.id) ?? unwrapped(this.keks, newest));
  }

  /** Refreshes every `intervalMs` until `stop` (a failed refresh keeps the current key and is reported). */
  startRefreshing(intervalMs = DATA_KEY_REFRESH_INTERVAL_MS): void {
    this.timer = setInterval(() => void this.refresh().catch(this.onRefreshFailed), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private use(key: DataKey): void {
    this.keys.set(key.id, key);
    this.current = key;
  }

  private async dataKey(id: string): Promise<DataKey> {
    const known = this.keys.get(id);
    if (known) return known;
    // Concurrent reads of values under one new key read the table once.
    let loading = this.loading.get(id);
    if (!loading) {
      loading = this.store
        .find(id)
        .then((stored) => {
          if (!stored) throw new DataKeyUnavailableError(`data key ${id} is not in the service's data_key table`);
          const key = unwrapped(this.keks, stored);
          this.keys.set(id, key);
          return key;
        })
        .finally(() => this.loading.delete(id));
      this.loading.set(id, loading);
    }
    return loading;
  }
}

/** A new random data key, wrapped by the current KEK and stored. */
async function addDataKey(keks: KeyEncryptionKeys, store: DataKeyStore): Promise<WrappedDataKey> {
  const id = randomUUID();
  const wrappedKey = keks.wrap(id, randomBytes(DATA_KEY_BYTES));
  await store.add({ id, wrappedKey, kekId: keks.current.id });
  // Replicas starting at once may each add one; each seals under its own until the next refresh,
  // when all take the newest. Every one of them opens what the others sealed.
  return { id, wrappedKey, kekId: keks.current.id, createdAt: new Date() };
}

async function loadFingerprintKey(keks: KeyEncryptionKeys, store: FingerprintKeyStore): Promise<FingerprintKey> {
  let stored = await store.fingerprintKey();
  if (!stored) {
    const id = randomUUID();
    await store.addFingerprintKey({ id, wrappedKey: keks.wrap(id, randomBytes(DATA_KEY_BYTES), 'fingerprint_key'), kekId: keks.current.id });
    stored = await store.fingerprintKey();
    if (!stored) throw new Error('the fingerprint key was stored but cannot be read back');
  }
  return new FingerprintKey(stored.id, createSecretKey(keks.unwrap(stored.id, stored.wrappedKey, stored.kekId, 'fingerprint_key')));
}

function unwrapped(keks: KeyEncryptionKeys, stored: WrappedDataKey): DataKey {
  return { id: stored.id, secret: createSecretKey(keks.unwrap(stored.id, stored.wrappedKey, stored.kekId)) };
}
