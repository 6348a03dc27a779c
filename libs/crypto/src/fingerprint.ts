import { createHmac, type KeyObject } from 'node:crypto';

/** How a keyed fingerprint starts: the algorithm it was made with. */
const FINGERPRINT_PREFIX = 'hmac-sha256:';

/**
 * A service's fingerprint key: recognises a value seen before (an identical retransmission) by
 * `hmac-sha256:` and the hex of HMAC-SHA-256 over it, stored in clear to be searched and compared.
 * A plain hash of patient data is no protection: whoever has a copy of the database and guesses a
 * value (a name, a birth date, a whole bundle re-assembled from them) can check the guess against
 * it. Without the key, which is kept wrapped by the KEK like the data keys, nobody can.
 *
 * One key per service, made on first use and never replaced: fingerprints are compared across
 * time, so a new one would make every stored fingerprint unrecognisable. A KEK rotation re-wraps it
 * (rewrapFingerprintKey); `new-data-key` leaves it alone.
 */
export class FingerprintKey {
  constructor(
    /** The id of its row in `fingerprint_key`. */
    readonly id: string,
    private readonly secret: KeyObject,
  ) {}

  /** The fingerprint of `data` (UTF-8 when a string). */
  of(data: string | Uint8Array): string {
    return FINGERPRINT_PREFIX + createHmac('sha256', this.secret).update(data).digest('hex');
  }
}
