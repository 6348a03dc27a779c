import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { DATA_KEY_BYTES } from './sealed-value';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEK_BYTES = 32;

/** A key-encryption key: it only wraps data keys, which seal the values. */
export interface KeyEncryptionKey {
  /** Stored with every data key it wraps (`data_key.kek_id`). */
  readonly id: string;
  readonly secret: KeyObject;
}

/** Where a wrapped key is kept: a data key, or the service's fingerprint key (libs/crypto fingerprint.ts). */
export type WrappedKeyTable = 'data_key' | 'fingerprint_key';

/** A data key wrapped by a key-encryption key we do not hold, or a wrapped key that does not authenticate. */
export class DataKeyUnavailableError extends Error {
  override name = 'DataKeyUnavailableError';
}

/**
 * The key-encryption keys of a service: the current one wraps new data keys; the previous ones
 * (a rotation under way, or the development keys) still unwrap the data keys they wrapped.
 */
export class KeyEncryptionKeys {
  private readonly byId: ReadonlyMap<string, KeyEncryptionKey>;

  constructor(
    readonly current: KeyEncryptionKey,
    previous: readonly KeyEncryptionKey[] = [],
  ) {
    this.byId = new Map([...previous, current].map((kek) => [kek.id, kek]));
  }

  /** The ids of every key held, the current one first. */
  get ids(): string[] {
    return [this.current.id, ...[...this.byId.keys()].filter((id) => id !== this.current.id)];
  }

  holds(kekId: string): boolean {
    return this.byId.has(kekId);
  }

  /**
   * A 32-byte key for `purpose` (e.g. `audit-anchor`), derived from the KEK `kekId` (the current
   * one by default) with HKDF-SHA256: as far from the database as the KEK itself, and useless for
   * anything else. Undefined when that KEK is not held.
   */
  derivedKey(purpose: string, kekId: string = this.current.id): Buffer | undefined {
    const kek = this.byId.get(kekId);
    return kek ? Buffer.from(hkdfSync('sha256', kek.secret, Buffer.alloc(0), `bedrequest ${purpose}`, 32)) : undefined;
  }

  /**
   * Wraps a data key under the current KEK: IV (12 bytes), tag (16), ciphertext (32), with the data
   * key's and the KEK's ids as additional data, so that a wrapped key moved to another data key's
   * row, or relabelled with another KEK id, does not unwrap. The table is part of it too: the
   * fingerprint key moved into `data_key` (to seal with it) does not unwrap there either.
   */
  wrap(dataKeyId: string, dataKey: Uint8Array, table: WrappedKeyTable = 'data_key'): Buffer<ArrayBuffer> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current.secret, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(wrappingContext(table, dataKeyId, this.current.id));
    const ciphertext = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
  }

  /** The raw key of a row of `data_key` (or of `fingerprint_key`). */
  unwrap(dataKeyId: string, wrapped: Uint8Array, kekId: string, table: WrappedKeyTable = 'data_key'): Buffer {
    const what = `${table === 'data_key' ? 'data key' : 'fingerprint key'} ${dataKeyId}`;
    const kek = this.byId.get(kekId);
    if (!kek) throw new DataKeyUnavailableError(`${what} is wrapped by key-encryption key "${kekId}", which is neither DATA_KEK nor in DATA_PREVIOUS_KEKS`);
    const bytes = Buffer.from(wrapped.buffer, wrapped.byteOffset, wrapped.byteLength);
    const decipher = createDecipheriv(ALGORITHM, kek.secret, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(wrappingContext(table, dataKeyId, kekId));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    let key: Buffer;
    try {
      key = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new DataKeyUnavailableError(`${what} does not unwrap with key-encryption key "${kekId}" (another key under the same id, or an altered row)`);
    }
    if (key.length !== DATA_KEY_BYTES) throw new DataKeyUnavailableError(`${what} is not ${DATA_KEY_BYTES} bytes long`);
    return key;
  }
}

/** A key-encryption key from its 32 raw bytes; without an id, one derived from the key (see kekIdOf). */
export function keyEncryptionKey(raw: Uint8Array, id: string = kekIdOf(raw)): KeyEncryptionKey {
  if (raw.length !== KEK_BYTES) throw new Error(`a key-encryption key has ${KEK_BYTES} bytes, not ${raw.length}`);
  return { id, secret: createSecretKey(raw) };
}

/**
 * The id of a key configured without one: `kek-` and 16 hex digits of a SHA-256 of the key. The
 * same key always gets the same id (the operator need not name it), and the hash of a 256-bit
 * random key says nothing about the key.
 */
export function kekIdOf(raw: Uint8Array): string {
  return `kek-${createHash('sha256').update('bedrequest key-encryption key id\0').update(raw).digest('hex').slice(0, 16)}`;
}

function wrappingContext(table: WrappedKeyTable, dataKeyId: string, kekId: string): Buffer {
  return Buffer.from(`${table}:wrapped_key:${dataKeyId}:${kekId}`, 'utf8');
}
