import { randomBytes } from 'node:crypto';
import { KeyEncryptionKeys, keyEncryptionKey, type KeyEncryptionKey } from '../key-encryption-keys';
import type { DataKeyStore, DevelopmentKekStore, FingerprintKeyStore, WrappedDataKey } from '../key-store';

/** The key tables in memory, for unit tests of code that seals (the SQL store has its own integration test). */
export class MemoryKeyStore implements DataKeyStore, FingerprintKeyStore, DevelopmentKekStore {
  readonly rows: WrappedDataKey[] = [];
  fingerprintRow?: WrappedDataKey;
  readonly developmentRows: { id: string; key: Uint8Array }[] = [];
  private clock = 0;

  async all(): Promise<WrappedDataKey[]> {
    // Copies, as rows read from a table would be.
    return this.rows.map((row) => ({ ...row })).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }

  async find(id: string): Promise<WrappedDataKey | undefined> {
    const row = this.rows.find((candidate) => candidate.id === id);
    return row && { ...row };
  }

  async newestWrappedBy(kekId: string): Promise<WrappedDataKey | undefined> {
    return (await this.all()).filter((row) => row.kekId === kekId).at(-1);
  }

  async add(key: Omit<WrappedDataKey, 'createdAt'>): Promise<void> {
    // A strictly rising clock: "newest" is well defined however fast a test adds keys.
    this.clock += 1;
    this.rows.push({ ...key, createdAt: new Date(this.clock) });
  }

  async rewrap(id: string, wrappedKey: Uint8Array, kekId: string, previousKekId: string): Promise<boolean> {
    const row = this.rows.find((candidate) => candidate.id === id && candidate.kekId === previousKekId);
    if (!row) return false;
    row.wrappedKey = wrappedKey;
    row.kekId = kekId;
    return true;
  }

  async fingerprintKey(): Promise<WrappedDataKey | undefined> {
    return this.fingerprintRow && { ...this.fingerprintRow };
  }

  async addFingerprintKey(key: Omit<WrappedDataKey, 'createdAt'>): Promise<void> {
    this.fingerprintRow ??= { ...key, createdAt: new Date() };
  }

  async rewrapFingerprintKey(id: string, wrappedKey: Uint8Array, kekId: string, previousKekId: string): Promise<boolean> {
    const row = this.fingerprintRow;
    if (row?.id !== id || row.kekId !== previousKekId) return false;
    row.wrappedKey = wrappedKey;
    row.kekId = kekId;
    return true;
  }

  async developmentKeks(): Promise<{ id: string; key: Uint8Array }[]> {
    return [...this.developmentRows];
  }

  async addDevelopmentKek(id: string, key: Uint8Array): Promise<void> {
    if (!this.developmentRows.some((row) => row.id === id)) this.developmentRows.push({ id, key });
  }
}

/** A fresh random key-encryption key named `id`. */
export function newKek(id: string): KeyEncryptionKey {
  return keyEncryptionKey(randomBytes(32), id);
}

/** KEKs with `current` and the `previous` ones. */
export function kekSet(current: KeyEncryptionKey, ...previous: KeyEncryptionKey[]): KeyEncryptionKeys {
  return new KeyEncryptionKeys(current, previous);
}
