import { randomBytes } from 'node:crypto';
import { KeyConfigError, keyEncryptionKeysOf } from './from-config';
import { kekIdOf } from './key-encryption-keys';
import { MemoryKeyStore } from './testing';

const base64Key = () => randomBytes(32).toString('base64');

describe('keyEncryptionKeysOf', () => {
  it('refuses to run in production without DATA_KEK, and makes no development key there', async () => {
    const store = new MemoryKeyStore();
    await expect(keyEncryptionKeysOf({ NODE_ENV: 'production' }, store)).rejects.toThrow(
      new KeyConfigError('DATA_KEK is required in production (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)'),
    );
    expect(store.developmentRows).toEqual([]);
  });

  it('outside production generates a development KEK once and keeps using it', async () => {
    const store = new MemoryKeyStore();
    const first = await keyEncryptionKeysOf({ NODE_ENV: 'development' }, store);
    const second = await keyEncryptionKeysOf({ NODE_ENV: 'development' }, store);
    expect(first.development).toBe(true);
    expect(store.developmentRows).toHaveLength(1);
    expect(first.keks.current.id).toMatch(/^development-[0-9a-f]{16}$/);
    expect(second.keks.current.id).toBe(first.keks.current.id);
  });

  it('takes DATA_KEK with its id, or an id derived from the key', async () => {
    const key = base64Key();
    const named = await keyEncryptionKeysOf({ NODE_ENV: 'production', DATA_KEK: key, DATA_KEK_ID: 'kek-2025-01' }, new MemoryKeyStore());
    expect(named.keks.current.id).toBe('kek-2025-01');
    const unnamed = await keyEncryptionKeysOf({ NODE_ENV: 'production', DATA_KEK: key }, new MemoryKeyStore());
    expect(unnamed.keks.current.id).toBe(kekIdOf(Buffer.from(key, 'base64')));
    expect(unnamed.keks.current.id).toMatch(/^kek-[0-9a-f]{16}$/);
  });

  it('holds the previous KEKs, and outside production the development KEK once DATA_KEK is set', async () => {
    const store = new MemoryKeyStore();
    const development = await keyEncryptionKeysOf({ NODE_ENV: 'development' }, store);
    const previous = base64Key();
    const { keks } = await keyEncryptionKeysOf(
      { NODE_ENV: 'development', DATA_KEK: base64Key(), DATA_KEK_ID: 'new', DATA_PREVIOUS_KEKS: [{ id: 'old', key: previous }, { key: base64Key() }] },
      store,
    );
    expect(keks.current.id).toBe('new');
    expect(keks.holds('old')).toBe(true);
    expect(keks.holds(development.keks.current.id)).toBe(true);
    expect(keks.ids).toHaveLength(4);
    const inProduction = await keyEncryptionKeysOf({ NODE_ENV: 'production', DATA_KEK: base64Key() }, store);
    expect(inProduction.keks.holds(development.keks.current.id)).toBe(false);
  });
});
