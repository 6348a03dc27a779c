import type { DataKeyring } from './data-keyring';
import type { DataKeyStore, FingerprintKeyStore } from './key-store';

/** A sealed column that can say how many of its rows each data key sealed. */
export interface CountedColumn {
  readonly name: string;
  countByDataKey(): Promise<{ dataKeyId: string; rows: number }[]>;
}

/**
 * What an operator needs to see before and after a rotation, ids and counts only: the KEKs this
 * process holds, and every data key with the KEK that wraps it and the rows it sealed per column.
 * A data key whose KEK is not held, or that still seals rows once a new one is current, is what the
 * next step of the rotation has to deal with.
 */
export async function describeKeys(keyring: DataKeyring, store: DataKeyStore, columns: readonly CountedColumn[]): Promise<string[]> {
  const counts = await Promise.all(columns.map(async (column) => ({ name: column.name, byKey: await column.countByDataKey() })));
  const rowsOf = (dataKeyId: string) =>
    counts
      .map(({ name, byKey }) => ({ name, rows: byKey.find((entry) => entry.dataKeyId === dataKeyId)?.rows ?? 0 }))
      .filter((entry) => entry.rows > 0)
      .map((entry) => `${entry.name} ${entry.rows}`);
  const [current, ...previous] = keyring.keks.ids;
  const lines = [`key-encryption keys: ${current} (current)${previous.map((id) => `, ${id}`).join('')}`];
  for (const key of await store.all()) {
    const state = [
      key.id === keyring.currentKeyId ? 'current' : undefined,
      keyring.keks.holds(key.kekId) ? undefined : 'KEK NOT CONFIGURED: its rows cannot be read',
    ].filter(Boolean);
    const rows = rowsOf(key.id);
    lines.push(
      `data key ${key.id}  wrapped by ${key.kekId}  created ${key.createdAt.toISOString()}${state.length ? `  (${state.join('; ')})` : ''}  rows: ${rows.length ? rows.join(', ') : 'none'}`,
    );
  }
  return lines;
}

/** For a service with a fingerprint key: the key with the KEK that wraps it, ids only. */
export async function describeFingerprintKey(keyring: DataKeyring, store: FingerprintKeyStore): Promise<string> {
  const key = await store.fingerprintKey();
  if (!key) return 'fingerprint key: none yet (made on first use)';
  const unavailable = keyring.keks.holds(key.kekId) ? '' : '  (KEK NOT CONFIGURED: no submission is recognised)';
  return `fingerprint key ${key.id}  wrapped by ${key.kekId}  created ${key.createdAt.toISOString()}${unavailable}`;
}
