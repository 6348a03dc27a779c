import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import {
  MalformedSealedValueError,
  SEALED_FORMAT_VERSION,
  SEALED_OVERHEAD_BYTES,
  SealedValueRejectedError,
  dataKeyIdOf,
  openWith,
  sealWith,
  type DataKey,
} from './sealed-value';

const newDataKey = (): DataKey => ({ id: randomUUID(), secret: createSecretKey(randomBytes(32)) });
const context = 'delivery:data:7f9d1c2e-0000-4000-8000-000000000001';
const note = Buffer.from('Patientin Erika Mustermann, Z. n. Hüft-TEP links', 'utf8');

describe('sealed values', () => {
  const key = newDataKey();

  it('lays out version, key id, IV, tag and ciphertext in 45 bytes plus the plaintext', () => {
    const sealed = sealWith(key, note, context);
    expect(sealed.length).toBe(SEALED_OVERHEAD_BYTES + note.length);
    expect(SEALED_OVERHEAD_BYTES).toBe(1 + 16 + 12 + 16);
    expect(sealed[0]).toBe(SEALED_FORMAT_VERSION);
    expect(sealed.subarray(1, 17).toString('hex')).toBe(key.id.replace(/-/g, ''));
    expect(dataKeyIdOf(sealed)).toBe(key.id);
  });

  it('opens what it sealed, and nothing of the plaintext shows in the sealed bytes', () => {
    const sealed = sealWith(key, note, context);
    expect(openWith(key, sealed, context)).toEqual(note);
    expect(sealed.includes(Buffer.from('Mustermann'))).toBe(false);
  });

  it('seals the same plaintext differently every time (a random IV per value)', () => {
    expect(sealWith(key, note, context).equals(sealWith(key, note, context))).toBe(false);
  });

  it('does not open a value copied to another row or column (the context is authenticated)', () => {
    const sealed = sealWith(key, note, context);
    expect(() => openWith(key, sealed, 'delivery:data:7f9d1c2e-0000-4000-8000-000000000002')).toThrow(SealedValueRejectedError);
    expect(() => openWith(key, sealed, 'subscription:secret:7f9d1c2e-0000-4000-8000-000000000001')).toThrow(SealedValueRejectedError);
  });

  it('does not open under another key, even one given the same id', () => {
    const sealed = sealWith(key, note, context);
    expect(() => openWith(newDataKey(), sealed, context)).toThrow(/sealed under data key/);
    expect(() => openWith({ id: key.id, secret: createSecretKey(randomBytes(32)) }, sealed, context)).toThrow(SealedValueRejectedError);
  });

  it('rejects any altered byte: ciphertext, tag, IV or the key id in the header', () => {
    const sealed = sealWith(key, note, context);
    for (const position of [sealed.length - 1, 30, 20]) {
      const altered = Buffer.from(sealed);
      altered[position] = altered[position]! ^ 1;
      expect(() => openWith(key, altered, context)).toThrow(SealedValueRejectedError);
    }
    const otherId = Buffer.from(sealed);
    otherId[5] = otherId[5]! ^ 1;
    expect(() => openWith({ ...key, id: dataKeyIdOf(otherId) }, otherId, context)).toThrow(SealedValueRejectedError);
  });

  it('refuses bytes of an unknown version or too short to be sealed, without trying to decrypt', () => {
    const sealed = sealWith(key, note, context);
    const version2 = Buffer.from(sealed);
    version2[0] = 2;
    expect(() => openWith(key, version2, context)).toThrow(MalformedSealedValueError);
    expect(() => dataKeyIdOf(sealed.subarray(0, SEALED_OVERHEAD_BYTES - 1))).toThrow(MalformedSealedValueError);
  });

  it('names the table and column in its errors, never the row (or anything of the value)', () => {
    const sealed = sealWith(key, note, context);
    expect(() => openWith({ id: key.id, secret: createSecretKey(randomBytes(32)) }, sealed, context)).toThrow(/for delivery:data$/);
  });

  it('seals the empty value too', () => {
    expect(openWith(key, sealWith(key, Buffer.alloc(0), context), context)).toEqual(Buffer.alloc(0));
  });
});
