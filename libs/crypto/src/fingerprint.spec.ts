import { createHash } from 'node:crypto';
import { DataKeyring } from './data-keyring';
import { FINGERPRINT_PREFIX, isKeyedFingerprint, refingerprintColumn, type FingerprintColumn, type FingerprintKey } from './fingerprint';
import { DataKeyUnavailableError } from './key-encryption-keys';
import { rewrapDataKeys, rewrapFingerprintKey } from './rotation';
import { MemoryKeyStore, kekSet, newKek } from './testing';

const bundle = '{"entry":[{"resource":{"name":[{"family":"Musterfrau","given":["Erika"]}]}}],"resourceType":"Bundle"}';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the fingerprint key', () => {
  it('fingerprints as hmac-sha256 and hex, not as the plain SHA-256 a copy of the database could check guesses against', async () => {
    const { keyring } = await DataKeyring.load({ keks: kekSet(newKek('kek-1')), store: new MemoryKeyStore() });
    const fingerprint = (await keyring.fingerprintKey()).of(bundle);
    expect(fingerprint).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(fingerprint).not.toContain(sha256(bundle));
    expect(isKeyedFingerprint(fingerprint)).toBe(true);
    expect(isKeyedFingerprint(sha256(bundle))).toBe(false);
  });

  it('is made once, stored only wrapped, and shared by every keyring of the service; another service has its own', async () => {
    const store = new MemoryKeyStore();
    const keks = kekSet(newKek('kek-1'));
    const [first, second] = await Promise.all([1, 2].map(async () => (await DataKeyring.load({ keks, store })).keyring));
    const [a, b] = await Promise.all([first!.fingerprintKey(), second!.fingerprintKey()]);
    expect(a.of(bundle)).toBe(b.of(bundle));
    expect(store.fingerprintRow).toMatchObject({ id: a.id, kekId: 'kek-1' });
    expect(store.rows.map((row) => row.id)).not.toContain(a.id);
    const other = (await DataKeyring.load({ keks, store: new MemoryKeyStore() })).keyring;
    expect((await other.fingerprintKey()).of(bundle)).not.toBe(a.of(bundle));
  });

  it('stays the same after a new data key, a new KEK and the re-wrapping that lets the old KEK go', async () => {
    const store = new MemoryKeyStore();
    const old = newKek('kek-old');
    const before = (await DataKeyring.load({ keks: kekSet(old), store })).keyring;
    const fingerprint = (await before.fingerprintKey()).of(bundle);

    await before.createDataKey();
    expect((await (await DataKeyring.load({ keks: kekSet(old), store })).keyring.fingerprintKey()).of(bundle)).toBe(fingerprint);

    const rotated = (await DataKeyring.load({ keks: kekSet(newKek('kek-new'), old), store })).keyring;
    expect((await rotated.fingerprintKey()).of(bundle)).toBe(fingerprint);
    await rewrapDataKeys(rotated, store, () => undefined);
    const lines: string[] = [];
    expect(await rewrapFingerprintKey(rotated, store, (line) => lines.push(line))).toBe('rewrapped');
    expect(lines).toEqual([`fingerprint key ${store.fingerprintRow!.id}: re-wrapped from kek-old to kek-new`]);
    expect(await rewrapFingerprintKey(rotated, store, () => undefined)).toBe('current');

    const withoutOld = (await DataKeyring.load({ keks: kekSet(rotated.keks.current), store })).keyring;
    expect((await withoutOld.fingerprintKey()).of(bundle)).toBe(fingerprint);
  });

  it('is not replaced when its KEK is gone: asking for it fails (and is tried again on the next call)', async () => {
    const store = new MemoryKeyStore();
    await (await DataKeyring.load({ keks: kekSet(newKek('kek-old')), store })).keyring.fingerprintKey();
    const { keyring } = await DataKeyring.load({ keks: kekSet(newKek('kek-new')), store });
    await expect(keyring.fingerprintKey()).rejects.toThrow(
      new DataKeyUnavailableError(
        `fingerprint key ${store.fingerprintRow!.id} is wrapped by key-encryption key "kek-old", which is neither DATA_KEK nor in DATA_PREVIOUS_KEKS`,
      ),
    );
    expect(await rewrapFingerprintKey(keyring, store, () => undefined)).toBe('unavailable');
    await expect(keyring.fingerprintKey()).rejects.toThrow(DataKeyUnavailableError);
  });

  it('does not unwrap as a data key, nor a data key as the fingerprint key (the table is in the wrapping)', async () => {
    const store = new MemoryKeyStore();
    const keks = kekSet(newKek('kek-1'));
    const { keyring } = await DataKeyring.load({ keks, store });
    await keyring.fingerprintKey();
    const row = store.fingerprintRow!;
    expect(() => keks.unwrap(row.id, row.wrappedKey, row.kekId)).toThrow(DataKeyUnavailableError);
    const dataKey = store.rows[0]!;
    expect(() => keks.unwrap(dataKey.id, dataKey.wrappedKey, dataKey.kekId, 'fingerprint_key')).toThrow(DataKeyUnavailableError);
  });
});

/** A column of hashes in memory: rows by id, each a plain SHA-256 (written before the key) or a fingerprint. */
class MemoryHashes implements FingerprintColumn {
  readonly name = 'request_version.canonical_hash';
  readonly rows = new Map<string, { text: string; hash: string }>();

  async countUnkeyed(): Promise<number> {
    return [...this.rows.values()].filter((row) => !isKeyedFingerprint(row.hash)).length;
  }

  async refingerprint(key: FingerprintKey, after: string | undefined, limit: number) {
    const batch = [...this.rows.entries()]
      .filter(([id, row]) => (after === undefined || id > after) && !isKeyedFingerprint(row.hash))
      .sort(([a], [b]) => a.localeCompare(b))
      .slice(0, limit);
    for (const [, row] of batch) row.hash = key.of(row.text);
    return { last: batch.at(-1)?.[0], read: batch.length, written: batch.length };
  }
}

describe('refingerprintColumn', () => {
  it('replaces the unkeyed hashes in batches, reporting progress, and finds nothing to do when run again', async () => {
    const { keyring } = await DataKeyring.load({ keks: kekSet(newKek('kek-1')), store: new MemoryKeyStore() });
    const key = await keyring.fingerprintKey();
    const column = new MemoryHashes();
    for (let n = 1; n <= 3; n += 1) column.rows.set(`r${n}`, { text: `bundle ${n}`, hash: sha256(`bundle ${n}`) });
    column.rows.set('r4', { text: 'bundle 4', hash: key.of('bundle 4') });

    const lines: string[] = [];
    expect(await refingerprintColumn(column, key, { batchSize: 2, progress: (line) => lines.push(line) })).toEqual({ refingerprinted: 3, skipped: 0 });
    expect(lines).toEqual([
      `request_version.canonical_hash: 3 unkeyed hashes to replace with fingerprints of key ${key.id}`,
      'request_version.canonical_hash: 2 of 3 (67 %), 2 replaced',
      'request_version.canonical_hash: 3 of 3 (100 %), 3 replaced',
    ]);
    expect([...column.rows.values()].map((row) => row.hash)).toEqual([1, 2, 3, 4].map((n) => key.of(`bundle ${n}`)));
    expect([...column.rows.values()].every((row) => row.hash.startsWith(FINGERPRINT_PREFIX))).toBe(true);
    expect(await refingerprintColumn(column, key, { batchSize: 2, progress: () => undefined })).toEqual({ refingerprinted: 0, skipped: 0 });
  });
});
