import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { KeyEncryptionKeys } from '@bedrequest/crypto';
import type { AuditTrailRepository, ChainHead } from './audit-trail.repository';

/** What the anchor key is derived for (KeyEncryptionKeys.derivedKey): no other key is derived so. */
export const ANCHOR_KEY_PURPOSE = 'audit-anchor';
const DAY_MS = 24 * 60 * 60 * 1000;
/** A day is anchored once it has ended this long ago: a batch recorded just before midnight has committed. */
const SETTLE_MS = 5 * 60 * 1000;
/** An ended day without an anchor this long after its end is reported: the hourly job had its chances. */
const MISSING_AFTER_MS = DAY_MS;
const ANCHOR_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The anchors of the audit trail (issue 26; migration 0003): the hash chain shows an edited entry,
 * but whoever may write to the database could rewrite a whole day and recompute every hash after
 * the edit. Once a UTC day has ended, its chain's head (the last entry's seq and hash) is recorded
 * with an HMAC-SHA256 over it, under a key derived from the key-encryption key (DATA_KEK), which
 * comes from the environment and never reaches the database. `audit verify` checks every day's
 * head against its anchor, and names an ended day that has none.
 */
export class AuditAnchors {
  constructor(
    private readonly repository: AuditTrailRepository,
    private readonly keks: KeyEncryptionKeys,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Anchors every day that ended at least a few minutes ago and has none yet; resolves with how many this call anchored. */
  async anchorEndedDays(): Promise<number> {
    const settled = new Date(this.now().getTime() - SETTLE_MS).toISOString().slice(0, 10);
    const key = this.keks.derivedKey(ANCHOR_KEY_PURPOSE);
    if (!key) throw new Error('the current key-encryption key is not held');
    let anchored = 0;
    for (const head of await this.repository.unanchoredHeads(settled)) {
      const row = { day: head.day, headSeq: head.seq, headHash: head.hash, kekId: this.keks.current.id, mac: anchorMac(key, head) };
      if (await this.repository.addAnchor(row)) anchored += 1;
    }
    return anchored;
  }

  /** Why `head`, the last entry of its day's chain, does not hold against the day's anchor; undefined when it does (or the day is too recent to have one). */
  async check(head: ChainHead): Promise<string | undefined> {
    const anchor = await this.repository.anchorOf(head.day);
    if (!anchor) {
      const ended = Date.parse(`${head.day}T00:00:00Z`) + DAY_MS;
      return this.now().getTime() - ended > MISSING_AFTER_MS ? 'its day has no anchor (the anchoring job records one after each day)' : undefined;
    }
    const key = this.keks.derivedKey(ANCHOR_KEY_PURPOSE, anchor.kekId);
    if (!key) return `its day's anchor was made with key-encryption key "${anchor.kekId}", which is neither DATA_KEK nor in DATA_PREVIOUS_KEKS`;
    if (!sameMac(anchorMac(key, { day: anchor.day, seq: anchor.headSeq, hash: anchor.headHash }), anchor.mac)) {
      return "its day's anchor does not verify (altered, or made with another key under that id)";
    }
    if (anchor.headSeq !== head.seq) return `the chain ends at entry ${head.seq}, but it was anchored at entry ${anchor.headSeq}`;
    if (anchor.headHash !== head.hash) return 'its hash does not match the anchor of its day (the chain was rewritten)';
    return undefined;
  }
}

/** Anchors the ended days once an hour (and at start); every intake process runs it, the second anchor of a day changes nothing. */
export class AuditAnchorJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly anchors: AuditAnchors,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), ANCHOR_INTERVAL_MS);
    this.timer.unref();
    void this.run();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private run(): Promise<void> {
    this.running ??= this.anchors
      .anchorEndedDays()
      .then((anchored) => {
        if (anchored > 0) this.logger.info({ days: anchored }, 'audit trail days anchored');
      })
      .catch((error: unknown) => this.logger.warn({ err: String(error) }, 'anchoring the audit trail failed; will retry'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}

/** HMAC-SHA256 (hex) over the day, seq and hash of a chain's head. */
export function anchorMac(key: Buffer, head: ChainHead): string {
  return createHmac('sha256', key).update(`bedrequest-audit-anchor:${head.day}:${head.seq}:${head.hash}`, 'utf8').digest('hex');
}

function sameMac(expected: string, actual: string): boolean {
  const [a, b] = [Buffer.from(expected, 'utf8'), Buffer.from(actual, 'utf8')];
  return a.length === b.length && timingSafeEqual(a, b);
}
