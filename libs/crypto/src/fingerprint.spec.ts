import { createHash } from 'node:crypto';
import { DataKeyring } from './data-keyring';
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
