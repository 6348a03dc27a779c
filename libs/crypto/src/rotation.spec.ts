import { DataKeyring } from './data-keyring';
import { reencryptColumn, rewrapDataKeys, type ResealedRow, type SealedColumn, type StaleRow } from './rotation';
import { dataKeyIdOf } from './sealed-value';
import { MemoryKeyStore, kekSet, newKek } from './testing';

/** A sealed column in memory: rows by id, each sealed. */
class MemoryColumn implements SealedColumn {
  readonly name = 'delivery.data';
  readonly rows = new Map<string, { sealed: Buffer }>();
  writes = 0;

  async countStale(keyId: string): Promise<number> {
    return [...this.rows.values()].filter((row) => isStale(row, keyId)).length;
  }

  async staleRows(keyId: string, after: string | undefined, limit: number): Promise<StaleRow[]> {
    return [...this.rows.entries()]
      .filter(([id, row]) => (after === undefined || id > after) && isStale(row, keyId))
      .sort(([a], [b]) => a.localeCompare(b))
      .slice(0, limit)
      .map(([id, row]) => ({ id, context: `delivery:data:${id}`, ...row }));
  }

  async write(rows: readonly ResealedRow[]): Promise<number> {
    this.writes += 1;
    let written = 0;
    for (const row of rows) {
      const stored = this.rows.get(row.id);
      if (!stored || stored.sealed !== row.was.sealed) continue;
      this.rows.set(row.id, { sealed: row.sealed });
      written += 1;
    }
    return written;
  }
}

const isStale = (row: { sealed: Buffer }, keyId: string) => dataKeyIdOf(row.sealed) !== keyId;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const note = (n: number) => JSON.stringify({ note: `Notiz ${n}` });

describe('key rotation', () => {
  it('re-wraps the data keys of the old KEK under the new one, so the old KEK can go', async () => {
    const store = new MemoryKeyStore();
    const old = newKek('kek-old');
    const before = (await DataKeyring.load({ keks: kekSet(old), store })).keyring;
    const sealed = before.seal(note(1), `delivery:data:${id(1)}`);
    const { keyring } = await DataKeyring.load({ keks: kekSet(newKek('kek-new'), old), store });

    const lines: string[] = [];
    expect(await rewrapDataKeys(keyring, store, (line) => lines.push(line))).toEqual({ rewrapped: 1, unavailable: 0 });
    expect(store.rows.map((row) => row.kekId)).toEqual(['kek-new', 'kek-new']);
    expect(lines).toEqual([`data key ${before.currentKeyId}: re-wrapped from kek-old to kek-new`]);

    // Without the old KEK, values sealed before the rotation still open.
    const withoutOld = (await DataKeyring.load({ keks: kekSet(keyring.keks.current), store })).keyring;
    expect((await withoutOld.open(sealed, `delivery:data:${id(1)}`)).toString()).toBe(note(1));
  });

  it('re-encrypts rows under old data keys in batches, reporting progress, and leaves current rows alone', async () => {
    const store = new MemoryKeyStore();
    const keks = kekSet(newKek('kek-1'));
    const old = (await DataKeyring.load({ keks, store })).keyring;
    const column = new MemoryColumn();
    for (let n = 1; n <= 6; n += 1) column.rows.set(id(n), { sealed: old.seal(note(n), `delivery:data:${id(n)}`) });
    const keyring = (await DataKeyring.load({ keks, store })).keyring;
    await keyring.createDataKey();
    column.rows.set(id(7), { sealed: keyring.seal(note(7), `delivery:data:${id(7)}`) });
    const untouched = column.rows.get(id(7));

    const lines: string[] = [];
    const result = await reencryptColumn(column, keyring, { batchSize: 4, progress: (line) => lines.push(line) });

    expect(result).toEqual({ reencrypted: 6, skipped: 0 });
    expect(column.writes).toBe(2);
    expect(lines).toEqual([
      `delivery.data: 6 rows to seal under data key ${keyring.currentKeyId}`,
      'delivery.data: 4 of 6 (67 %), 4 re-encrypted',
      'delivery.data: 6 of 6 (100 %), 6 re-encrypted',
    ]);
    expect(column.rows.get(id(7))).toBe(untouched);
    for (let n = 1; n <= 7; n += 1) {
      const row = column.rows.get(id(n))!;
      expect(dataKeyIdOf(row.sealed)).toBe(keyring.currentKeyId);
      expect((await keyring.open(row.sealed, `delivery:data:${id(n)}`)).toString()).toBe(note(n));
    }
    expect(await reencryptColumn(column, keyring, { batchSize: 4, progress: () => undefined })).toEqual({ reencrypted: 0, skipped: 0 });
  });

  it('keeps a row the service changed between read and write', async () => {
    const store = new MemoryKeyStore();
    const keks = kekSet(newKek('kek-1'));
    const column = new MemoryColumn();
    const old = (await DataKeyring.load({ keks, store })).keyring;
    column.rows.set(id(1), { sealed: old.seal(note(1), `delivery:data:${id(1)}`) });
    const { keyring } = await DataKeyring.load({ keks, store });
    await keyring.createDataKey();
    const changed = keyring.seal(note(2), `delivery:data:${id(1)}`);
    const write = column.write.bind(column);
    column.write = async (rows) => {
      column.rows.set(id(1), { sealed: changed });
      return write(rows);
    };
    expect(await reencryptColumn(column, keyring, { batchSize: 10, progress: () => undefined })).toEqual({ reencrypted: 0, skipped: 1 });
    expect(column.rows.get(id(1))!.sealed).toBe(changed);
  });
});
