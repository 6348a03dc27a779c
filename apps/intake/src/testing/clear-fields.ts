import { SealedFields } from '../persistence';

/**
 * Bundles, summaries, documents, notes and verdicts stored as their plain JSON bytes in the sealed
 * columns: the same statements and columns as SealedFields, without the cryptography. Only for the
 * bench's measure of what sealing costs (bench/src/figure-intake-encryption.ts); never in a service.
 */
export class ClearFields extends SealedFields {
  override seal(_context: string, value: unknown): Buffer<ArrayBuffer> {
    return Buffer.from(JSON.stringify(value));
  }

  override async open<T>(_context: string, sealed: Uint8Array): Promise<T> {
    return JSON.parse(Buffer.from(sealed).toString('utf8')) as T;
  }
}
