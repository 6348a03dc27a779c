import type { Logger } from 'pino';
import type { KeyEncryptionKeys } from '@bedrequest/crypto';
import { GENESIS_HASH } from './audit-chain';
import { ANCHOR_KEY_PURPOSE, EMPTY_HEAD, anchorFault, dayOf, endOf, linkOf, nextDay, sealAnchor, type AnchorRecord } from './anchor-chain';
import type { AuditTrailRepository } from './audit-trail.repository';

/** A day is anchored once it has ended this long ago: a batch recorded just before midnight has committed. */
const SETTLE_MS = 5 * 60 * 1000;
/** An ended day without an anchor this long after its end is reported: the hourly job had its chances. */
const MISSING_AFTER_MS = 24 * 60 * 60 * 1000;
const ANCHOR_INTERVAL_MS = 60 * 60 * 1000;
/** Tries of one anchoring run when another process anchors the same days at the same moment. */
const ATTEMPTS = 3;

/**
 * The anchors of the audit trail (docs/data-protection.md, "Anchors"): the hash chain shows an
 * edited entry, but whoever may write to the database could rewrite a whole day and recompute every
 * hash after the edit, or remove a day. Once a UTC day has ended, its chain's head (the last entry's
 * seq and hash, or none) is recorded with the hash of the anchor before it and an HMAC-SHA256 over
 * both, under a key derived from the key-encryption key (DATA_KEK), which comes from the environment
 * and never reaches the database. Every day gets one, an empty day too, so a day removed with its
 * anchor leaves a gap that `audit verify` names; an export of the anchors kept outside the database
 * (anchor-export.ts) shows what whoever also holds the key could rewrite.
 */
export class AuditAnchors {
  constructor(
    private readonly repository: AuditTrailRepository,
    private readonly keks: KeyEncryptionKeys,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Anchors every day that ended at least a few minutes ago, from the day after the last anchor (the
   * first day with entries in a trail without one), in one statement; resolves with how many. Another
   * process anchoring the same days makes the statement fail as a whole, and the next try finds them.
   */
  async anchorEndedDays(): Promise<number> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.anchorOnce();
      } catch (error) {
        if (attempt >= ATTEMPTS || !isUniqueViolation(error)) throw error;
      }
    }
  }

  /** The anchors as stored, and how verify judges them (its clock, its keys). */
  async chain(): Promise<ChainOfAnchors> {
    return new ChainOfAnchors(await this.repository.anchors(), (kekId) => this.keks.derivedKey(ANCHOR_KEY_PURPOSE, kekId), this.now().getTime());
  }

  private async anchorOnce(): Promise<number> {
    const settled = dayOf(this.now().getTime() - SETTLE_MS);
    const key = this.keks.derivedKey(ANCHOR_KEY_PURPOSE);
    if (!key) throw new Error('the current key-encryption key is not held');
    // The last chained anchor and those after it (of an older process, still running during a release).
    const [last, ...later] = await this.repository.lastAnchors();
    const start = last ? nextDay(last.day) : await this.repository.firstEntryDay();
    if (start === undefined || start >= settled) return 0;
    const heads = new Map((await this.repository.heads(start, settled)).map((head) => [head.day, head]));
    const stored = new Map(later.map((anchor) => [anchor.day, anchor]));
    let previous = last ? linkOf(last) : GENESIS_HASH;
    const anchors: AnchorRecord[] = [];
    for (let day = start; day < settled; day = nextDay(day)) {
      const anchor = stored.get(day) ?? sealAnchor(key, this.keks.current.id, heads.get(day) ?? { day, ...EMPTY_HEAD }, previous);
      if (!stored.has(day)) anchors.push(anchor);
      previous = linkOf(anchor);
    }
    return this.repository.addAnchors(anchors);
  }
}

/**
 * The anchors as `audit verify` reads them, oldest first. From the first chained anchor on (the
 * first made by this release), every day has one once it ended more than a day ago; before it, only
 * the days with entries had one, and a day without any was not told apart from a day removed.
 */
export class ChainOfAnchors {
  private readonly byDay: Map<string, number>;
  /** The first day whose anchor names the one before it. */
  readonly start?: string;

  constructor(
    private readonly anchors: readonly AnchorRecord[],
    private readonly keyOf: (kekId: string) => Buffer | undefined,
    private readonly now: number,
  ) {
    this.byDay = new Map(anchors.map((anchor, index) => [anchor.day, index]));
    this.start = anchors.find((anchor) => anchor.previousHash !== null)?.day;
  }

  get size(): number {
    return this.anchors.length;
  }

  anchorOf(day: string): AnchorRecord | undefined {
    const index = this.byDay.get(day);
    return index === undefined ? undefined : this.anchors[index];
  }

  /** The days verify walks, oldest first: those with entries or an anchor, and every day of the chain's span that must have one. */
  days(withEntries: Iterable<string>): string[] {
    const days = new Set([...withEntries, ...this.byDay.keys()]);
    if (this.start !== undefined) for (let day = this.start; this.required(day); day = nextDay(day)) days.add(day);
    return [...days].sort();
  }

  /** Why the day's anchor does not hold (or is missing where it must be), undefined when it holds. */
  check(day: string, hasEntries: boolean): string | undefined {
    const index = this.byDay.get(day) ?? -1;
    const anchor = this.anchors[index];
    if (!anchor) {
      if (!this.required(day)) return undefined;
      if (this.start !== undefined && day > this.start) {
        return `it has no anchor, though every day from ${this.start} on has one, an empty day too (its anchor was removed, and its entries with it if it had any)`;
      }
      return hasEntries ? 'its day has no anchor (the anchoring job records one after each day)' : undefined;
    }
    const key = this.keyOf(anchor.kekId);
    if (!key) return `its day's anchor was made with key-encryption key "${anchor.kekId}", which is neither DATA_KEK nor in DATA_PREVIOUS_KEKS`;
    const fault = anchorFault(anchor, key);
    if (fault || anchor.previousHash === null) return fault;
    const before = this.anchors[index - 1];
    if (!before) {
      return anchor.previousHash === GENESIS_HASH
        ? undefined
        : 'its anchor follows an anchor the database no longer holds (the anchors before it were removed)';
    }
    return anchor.previousHash === linkOf(before)
      ? undefined
      : `its anchor does not follow the anchor of ${before.day} (an anchor between them was removed, or that one altered)`;
  }

  /** Why the day's last entry (none: the day has no entries) is not the head its anchor records, undefined when it is (or there is no anchor). */
  checkHead(day: string, head: { seq: number; hash: string } | undefined): string | undefined {
    const anchor = this.anchorOf(day);
    if (!anchor) return undefined;
    const { seq, hash } = head ?? EMPTY_HEAD;
    if (!head && anchor.headSeq !== 0) return `it has no entries, but it was anchored at entry ${anchor.headSeq} (its entries were removed)`;
    if (anchor.headSeq !== seq) return `the chain ends at entry ${seq}, but it was anchored at entry ${anchor.headSeq}`;
    if (anchor.headHash !== hash) return 'its hash does not match the anchor of its day (the chain was rewritten)';
    return undefined;
  }

  /** Whether `day` has ended long enough ago to have an anchor for sure. */
  private required(day: string): boolean {
    return this.now - endOf(day) > MISSING_AFTER_MS;
  }
}

/** A unique violation (PostgreSQL 23505), as Prisma's raw queries report it (P2010, the driver's code in its cause), or pg's. */
function isUniqueViolation(error: unknown): boolean {
  const { code, meta } = (error ?? {}) as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } };
  return code === '23505' || meta?.driverAdapterError?.cause?.originalCode === '23505';
}

/** Anchors the ended days once an hour (and at start); every intake process runs it, and only one of them anchors a day. */
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
