import { DataKeyring } from './data-keyring';
import { DataKeyUnavailableError } from './key-encryption-keys';
import { SealedValueRejectedError, dataKeyIdOf } from './sealed-value';
import { MemoryKeyStore, kekSet, newKek } from './testing';

const context = 'delivery:data:4b3a4a63-1111-4c6e-9f1c-0d2e3f405060';
const task = { resourceType: 'Task', note: [{ text: 'Patient kommt mit Rollator' }] };

describe('DataKeyring', () => {
  it('makes a data key wrapped by the current KEK on the first start, and keeps using it after a restart', async () => {
    const store = new MemoryKeyStore();
    const keks = kekSet(newKek('kek-1'));
    const first = (await DataKeyring.load({ keks, store })).keyring;
    expect(store.rows).toHaveLength(1);
    expect(store.rows[0]).toMatchObject({ id: first.currentKeyId, kekId: 'kek-1' });
    const sealed = first.sealJson(task, context);

    const restarted = (await DataKeyring.load({ keks, store })).keyring;
    expect(store.rows).toHaveLength(1);
    expect(restarted.currentKeyId).toBe(first.currentKeyId);
    expect(await restarted.openJson(sealed, context)).toEqual(task);
  });

  it('stores the data key only wrapped, and a KEK under the same id but with other bytes does not unwrap it', async () => {
    const store = new MemoryKeyStore();
    const keks = kekSet(newKek('kek-1'));
    await DataKeyring.load({ keks, store });
    const row = store.rows[0]!;
    expect(row.wrappedKey).toHaveLength(12 + 16 + 32);
    expect(Buffer.from(row.wrappedKey).includes(keks.unwrap(row.id, row.wrappedKey, row.kekId))).toBe(false);
    await expect(DataKeyring.load({ keks: kekSet(newKek('kek-1')), store })).rejects.toThrow(DataKeyUnavailableError);
  });

  it('does not open a value moved to another row', async () => {
    const { keyring } = await DataKeyring.load({ keks: kekSet(newKek('kek-1')), store: new MemoryKeyStore() });
    const sealed = keyring.sealJson(task, context);
    await expect(keyring.open(sealed, 'delivery:data:4b3a4a63-1111-4c6e-9f1c-0d2e3f405061')).rejects.toThrow(SealedValueRejectedError);
  });

  it('does not open what another service (another key table) sealed', async () => {
    const keks = kekSet(newKek('kek-1'));
    const notifier = (await DataKeyring.load({ keks, store: new MemoryKeyStore() })).keyring;
    const intake = (await DataKeyring.load({ keks, store: new MemoryKeyStore() })).keyring;
    await expect(intake.open(notifier.sealJson(task, context), context)).rejects.toThrow(/not in the service's data_key table/);
  });

  describe('rotation of the KEK', () => {
    it('seals under a new data key from the start with the new KEK on; values under the old one still open', async () => {
      const store = new MemoryKeyStore();
      const old = newKek('kek-old');
      const before = (await DataKeyring.load({ keks: kekSet(old), store })).keyring;
      const sealedBefore = before.sealJson(task, context);

      const after = (await DataKeyring.load({ keks: kekSet(newKek('kek-new'), old), store })).keyring;
      expect(after.currentKeyId).not.toBe(before.currentKeyId);
      expect(store.rows.map((row) => row.kekId)).toEqual(['kek-old', 'kek-new']);
      expect(dataKeyIdOf(after.sealJson(task, context))).toBe(after.currentKeyId);
      expect(await after.openJson(sealedBefore, context)).toEqual(task);
    });

    it('names the data keys whose KEK is gone, and cannot open their values', async () => {
      const store = new MemoryKeyStore();
      const before = (await DataKeyring.load({ keks: kekSet(newKek('kek-old')), store })).keyring;
      const sealedBefore = before.sealJson(task, context);
      const { keyring: after, unavailable } = await DataKeyring.load({ keks: kekSet(newKek('kek-new')), store });
      expect(unavailable).toEqual([
        { id: before.currentKeyId, kekId: 'kek-old', reason: expect.stringContaining('neither DATA_KEK nor in DATA_PREVIOUS_KEKS') },
      ]);
      await expect(after.open(sealedBefore, context)).rejects.toThrow(DataKeyUnavailableError);
    });
  });

  describe('a new data key', () => {
    it('seals at once in the process that made it, and in the others from their next refresh', async () => {
      const store = new MemoryKeyStore();
      const keks = kekSet(newKek('kek-1'));
      const admin = (await DataKeyring.load({ keks, store })).keyring;
      const service = (await DataKeyring.load({ keks, store })).keyring;
      const oldKey = service.currentKeyId;
      const sealedBefore = service.sealJson(task, context);

      const newKey = await admin.createDataKey();
      expect(admin.currentKeyId).toBe(newKey);
      expect(service.currentKeyId).toBe(oldKey);
      await service.refresh();
      expect(service.currentKeyId).toBe(newKey);
      expect(await service.openJson(sealedBefore, context)).toEqual(task);
    });

    it('opens values under a data key another process made, reading the table once', async () => {
      const store = new MemoryKeyStore();
      const keks = kekSet(newKek('kek-1'));
      const reader = (await DataKeyring.load({ keks, store })).keyring;
      const writer = (await DataKeyring.load({ keks, store })).keyring;
      await writer.createDataKey();
      const sealed = writer.sealJson(task, context);
      const find = jest.spyOn(store, 'find');
      expect(await Promise.all([reader.openJson(sealed, context), reader.openJson(sealed, context)])).toEqual([task, task]);
      expect(find).toHaveBeenCalledTimes(1);
    });
  });
});
