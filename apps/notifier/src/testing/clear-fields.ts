import type { ProtectedFields, StoredValue } from '../persistence/sealed-fields';

/**
 * The secrets and Tasks stored as their plain UTF-8 bytes in the sealed columns: the same
 * statements and columns as SealedFields, without the cryptography. Only for the bench's measure of
 * what sealing costs (bench/src/figure-encryption.ts); never in a service.
 */
export class ClearFields implements ProtectedFields {
  sealSecret(_subscriptionId: string, secret: string): Uint8Array<ArrayBuffer> {
    return new TextEncoder().encode(secret);
  }

  async openSecret(_subscriptionId: string, stored: Uint8Array | null): Promise<string> {
    return stored ? Buffer.from(stored).toString('utf8') : '';
  }

  sealPreviousSecret(subscriptionId: string, secret: string): Uint8Array<ArrayBuffer> {
    return this.sealSecret(subscriptionId, secret);
  }

  async openPreviousSecret(subscriptionId: string, stored: Uint8Array): Promise<string> {
    return this.openSecret(subscriptionId, stored);
  }

  sealData(_eventId: string, data: unknown): Uint8Array<ArrayBuffer> {
    return new TextEncoder().encode(JSON.stringify(data));
  }

  async openData(_eventId: string, stored: StoredValue<unknown>): Promise<unknown> {
    return stored.sealed ? (JSON.parse(Buffer.from(stored.sealed).toString('utf8')) as unknown) : stored.clear;
  }
}
