import type { DataKeyring } from './data-keyring';
import type { DataKeyStore, FingerprintKeyStore } from './key-store';
import { percent, type Progress } from './progress';

/**
 * Wraps every data key that another KEK wraps anew under the current KEK, so that the old KEK can
 * be removed from DATA_PREVIOUS_KEKS. The data keys themselves stay the same, so no value changes.
 * Data keys no KEK held unwraps are left as they are and counted.
 */
export async function rewrapDataKeys(keyring: DataKeyring, store: DataKeyStore, progress: Progress): Promise<{ rewrapped: number; unavailable: number }> {
  const { keks } = keyring;
  let rewrapped = 0;
  let unavailable = 0;
  for (const stored of await store.all()) {
    if (stored.kekId === keks.current.id) continue;
    if (!keks.holds(stored.kekId)) {
      unavailable += 1;
      progress(`data key ${stored.id}: wrapped by ${stored.kekId}, which is not configured; left as it is`);
      continue;
    }
    const raw = keks.unwrap(stored.id, stored.wrappedKey, stored.kekId);
    if (await store.rewrap(stored.id, keks.wrap(stored.id, raw), keks.current.id, stored.kekId)) {
      rewrapped += 1;
      progress(`data key ${stored.id}: re-wrapped from ${stored.kekId} to ${keks.current.id}`);
    }
  }
  return { rewrapped, unavailable };
}

/**
 * Wraps the service's fingerprint key anew under the current KEK when another KEK wraps it (a
 * rotation): the key itself stays, so every fingerprint stays valid. Says what it did: `rewrapped`,
 * `current` (nothing to do, or no fingerprint key yet) or `unavailable` (its KEK is not configured).
 */
export async function rewrapFingerprintKey(
  keyring: DataKeyring,
  store: FingerprintKeyStore,
  progress: Progress,
): Promise<'rewrapped' | 'current' | 'unavailable'> {
  const { keks } = keyring;
  const stored = await store.fingerprintKey();
  if (!stored || stored.kekId === keks.current.id) return 'current';
  if (!keks.holds(stored.kekId)) {
    progress(`fingerprint key ${stored.id}: wrapped by ${stored.kekId}, which is not configured; left as it is`);
    return 'unavailable';
  }
  const raw = keks.unwrap(stored.id, stored.wrappedKey, stored.kekId, 'fingerprint_key');
  if (!(await store.rewrapFingerprintKey(stored.id, keks.wrap(stored.id, raw, 'fingerprint_key'), keks.current.id, stored.kekId))) return 'current';
  progress(`fingerprint key ${stored.id}: re-wrapped from ${stored.kekId} to ${keks.current.id}`);
  return 'rewrapped';
}

/** A row of a sealed column that is not sealed under the current data key. */
export interface StaleRow {
  /** Primary key, in the order rows are walked. */
  id: string;
  /** What the value is sealed for (`table:column:primary key`). */
  context: string;
  /** The value sealed under an older data key. */
  sealed: Uint8Array;
}

/** A row's value sealed under the current data key, to be written where the row still holds `was`. */
export interface ResealedRow {
  id: string;
  sealed: Buffer<ArrayBuffer>;
  /** What the row held when read: the write is skipped when it changed since. */
  was: Pick<StaleRow, 'sealed'>;
}

/** One sealed column of a service, as the re-encryption walks it. */
export interface SealedColumn {
  /** `table.column`, for the progress lines. */
  readonly name: string;
  /** Rows whose value is sealed under another data key than `currentKeyId`. */
  countStale(currentKeyId: string): Promise<number>;
  /** The next `limit` such rows after primary key `after`, in primary key order. */
  staleRows(currentKeyId: string, after: string | undefined, limit: number): Promise<StaleRow[]>;
  /** Writes each row only where it still holds what was read; returns how many were written. */
  write(rows: readonly ResealedRow[]): Promise<number>;
}

/**
 * Seals every value of `column` that an older data key sealed anew under the current data key, `batchSize` rows per read and write, reporting progress after each batch. The
 * service keeps running meanwhile: a row changed between read and write keeps its new value.
 */
export async function reencryptColumn(
  column: SealedColumn,
  keyring: DataKeyring,
  options: { batchSize: number; progress: Progress },
): Promise<{ reencrypted: number; skipped: number }> {
  const keyId = keyring.currentKeyId;
  const total = await column.countStale(keyId);
  options.progress(`${column.name}: ${total} row${total === 1 ? '' : 's'} to seal under data key ${keyId}`);
  let after: string | undefined;
  let reencrypted = 0;
  let seen = 0;
  for (;;) {
    const rows = await column.staleRows(keyId, after, options.batchSize);
    if (rows.length === 0) break;
    const resealed: ResealedRow[] = [];
    for (const row of rows) {
      const plaintext = await keyring.open(row.sealed, row.context);
      resealed.push({ id: row.id, sealed: keyring.seal(plaintext, row.context), was: { sealed: row.sealed } });
    }
    reencrypted += await column.write(resealed);
    seen += rows.length;
    after = rows.at(-1)?.id;
    options.progress(`${column.name}: ${seen} of ${total} (${percent(seen, total)}), ${reencrypted} re-encrypted`);
  }
  return { reencrypted, skipped: seen - reencrypted };
}
