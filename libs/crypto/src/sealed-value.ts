import { createCipheriv, createDecipheriv, randomFillSync, type KeyObject } from 'node:crypto';

/**
 * A value encrypted at rest ("sealed"): AES-256-GCM under a data key, in one compact binary string
 * stored in a `bytea` column:
 *
 *   byte 0        format version (1)
 *   bytes 1-16    id of the data key (a UUID, 16 bytes)
 *   bytes 17-28   IV (96 bits, random per value: NIST SP 800-38D, 8.2.2)
 *   bytes 29-44   authentication tag (128 bits)
 *   bytes 45-     ciphertext (as long as the plaintext)
 *
 * The additional authenticated data is the header (version and key id) followed by the value's
 * context, e.g. `delivery:data:<event id>`: a value copied into another row, or another column,
 * does not decrypt there, nor does one whose key id was edited. A new layout gets a new version
 * number; readers keep reading the old ones.
 */
export const SEALED_FORMAT_VERSION = 1;

const ALGORITHM = 'aes-256-gcm';
export const DATA_KEY_BYTES = 32;
const KEY_ID_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES;
/** What sealing adds to a value: 45 bytes. */
export const SEALED_OVERHEAD_BYTES = HEADER_BYTES + IV_BYTES + TAG_BYTES;

/** An unwrapped data key, ready to seal and open values. */
export interface DataKey {
  /** The UUID stored with every value it seals. */
  readonly id: string;
  readonly secret: KeyObject;
}

/** Bytes that are not a sealed value of a known format version (truncated, or not sealed at all). */
export class MalformedSealedValueError extends Error {
  override name = 'MalformedSealedValueError';
}

/**
 * A sealed value that does not authenticate: the wrong key, the wrong context (the value was
 * moved to another row or column) or altered bytes. GCM cannot tell these apart, and says nothing
 * about the plaintext.
 */
export class SealedValueRejectedError extends Error {
  override name = 'SealedValueRejectedError';
}

/** Seals `plaintext` under `key` for `context` (the row and column it is stored in). */
export function sealWith(key: DataKey, plaintext: Uint8Array, context: string): Buffer<ArrayBuffer> {
  const sealed = Buffer.allocUnsafe(SEALED_OVERHEAD_BYTES + plaintext.length);
  sealed[0] = SEALED_FORMAT_VERSION;
  uuidBytes(key.id).copy(sealed, 1);
  const iv = sealed.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES);
  nextIv(iv);
  const cipher = createCipheriv(ALGORITHM, key.secret, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(sealed.subarray(0, HEADER_BYTES), context));
  const ciphertext = cipher.update(plaintext);
  const last = cipher.final();
  ciphertext.copy(sealed, SEALED_OVERHEAD_BYTES);
  last.copy(sealed, SEALED_OVERHEAD_BYTES + ciphertext.length);
  cipher.getAuthTag().copy(sealed, HEADER_BYTES + IV_BYTES);
  return sealed;
}

/** The plaintext of `sealed`, which must have been sealed under `key` for the same `context`. */
export function openWith(key: DataKey, sealed: Uint8Array, context: string): Buffer {
  const parts = partsOf(sealed);
  if (parts.keyId !== key.id) throw new SealedValueRejectedError(`the value is sealed under data key ${parts.keyId}, not ${key.id}`);
  const decipher = createDecipheriv(ALGORITHM, key.secret, parts.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(parts.header, context));
  decipher.setAuthTag(parts.tag);
  try {
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
  } catch {
    throw new SealedValueRejectedError(`the value does not authenticate under data key ${key.id} for ${describeContext(context)}`);
  }
}

/** The id of the data key `sealed` was sealed under. */
export function dataKeyIdOf(sealed: Uint8Array): string {
  return partsOf(sealed).keyId;
}

/** The 16 bytes of a UUID (as stored in a sealed value's header). */
export function uuidBytes(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`not a UUID: ${uuid}`);
  return Buffer.from(hex, 'hex');
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function partsOf(sealed: Uint8Array) {
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (bytes.length < SEALED_OVERHEAD_BYTES) {
    throw new MalformedSealedValueError(`a sealed value has at least ${SEALED_OVERHEAD_BYTES} bytes, this one ${bytes.length}`);
  }
  if (bytes[0] !== SEALED_FORMAT_VERSION) throw new MalformedSealedValueError(`unknown sealed value format version ${bytes[0]}`);
  const header = bytes.subarray(0, HEADER_BYTES);
  return {
    header,
    keyId: uuidOf(bytes.subarray(1, HEADER_BYTES)),
    iv: bytes.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES),
    tag: bytes.subarray(HEADER_BYTES + IV_BYTES, SEALED_OVERHEAD_BYTES),
    ciphertext: bytes.subarray(SEALED_OVERHEAD_BYTES),
  };
}

/**
 * Random IVs cut from a pool filled by the CSPRNG 4 KiB at a time: one `randomBytes(12)` call per
 * value cost about 5 µs here, as much as the encryption itself; a slice of the pool 0.2 µs. Each
 * slice is used once.
 */
const ivPool = Buffer.alloc(IV_BYTES * 341);
let ivPoolOffset = ivPool.length;

function nextIv(target: Buffer): void {
  if (ivPoolOffset + IV_BYTES > ivPool.length) {
    randomFillSync(ivPool);
    ivPoolOffset = 0;
  }
  ivPool.copy(target, 0, ivPoolOffset, ivPoolOffset + IV_BYTES);
  ivPoolOffset += IV_BYTES;
}

function additionalData(header: Buffer, context: string): Buffer {
  return Buffer.concat([header, Buffer.from(context, 'utf8')]);
}

/** The context's table and column (`delivery:data`), never the row's key: errors end up in logs. */
function describeContext(context: string): string {
  return context.split(':').slice(0, 2).join(':');
}
