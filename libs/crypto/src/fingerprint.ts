import { createHmac, type KeyObject } from 'node:crypto';
import { percent, type Progress } from './progress';

/** How a keyed fingerprint starts: the algorithm, so that a value of another form is told apart. */
export const FINGERPRINT_PREFIX = 'hmac-sha256:';

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

/** Whether a stored hash is a keyed fingerprint (and not one of an earlier, unkeyed form). */
export function isKeyedFingerprint(stored: string): boolean {
  return stored.startsWith(FINGERPRINT_PREFIX);
}

/**
 * A column of a service's schema that holds hashes, some of them still unkeyed (written before the
 * service had a fingerprint key): what `keys` counts and `reencrypt` replaces with fingerprints.
 * The service knows what each hash was made of; the walk is common (refingerprintColumn).
 */
export interface FingerprintColumn {
  /** `table.column`, for the progress lines. */
  readonly name: string;
  /** Rows whose hash is not a keyed fingerprint yet. */
  countUnkeyed(): Promise<number>;
  /**
   * Replaces the unkeyed hashes of the next `limit` such rows after the row `after` (in the
   * column's order) with fingerprints made with `key`, each row only where it still holds the hash
   * read (the service may write meanwhile). Returns the last row read (to go on after it), how many
   * were read and how many written.
   */
  refingerprint(key: FingerprintKey, after: string | undefined, limit: number): Promise<{ last: string | undefined; read: number; written: number }>;
}

/**
 * Replaces every unkeyed hash of `column` with a fingerprint, `batchSize` rows at a time, reporting
 * progress after each batch. Run again, it finds nothing left to do.
 */
export async function refingerprintColumn(
  column: FingerprintColumn,
  key: FingerprintKey,
  options: { batchSize: number; progress: Progress },
): Promise<{ refingerprinted: number; skipped: number }> {
  const total = await column.countUnkeyed();
  options.progress(`${column.name}: ${total} unkeyed hash${total === 1 ? '' : 'es'} to replace with fingerprints of key ${key.id}`);
  let after: string | undefined;
  let seen = 0;
  let refingerprinted = 0;
  for (;;) {
    const batch = await column.refingerprint(key, after, options.batchSize);
    if (batch.read === 0) break;
    seen += batch.read;
    refingerprinted += batch.written;
    after = batch.last;
    options.progress(`${column.name}: ${seen} of ${total} (${percent(seen, total)}), ${refingerprinted} replaced`);
  }
  return { refingerprinted, skipped: seen - refingerprinted };
}
