import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';

/** What a session holds: the person's token pair, who the tokens are for, and its times (ms since the epoch). */
export const SessionRecord = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  principal: z.object({ partyId: z.string(), role: z.enum(['referrer', 'clinic']), ikNumbers: z.array(z.string()) }),
  /** The login: the session ends `lifetimeSeconds` after it, however it was used. */
  createdAt: z.number().int(),
  /** The last request the person made in it: the session ends `idleSeconds` after it. */
  lastSeenAt: z.number().int(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

/** When sessions end (WEB_SESSION_IDLE_SECONDS, WEB_SESSION_LIFETIME_SECONDS; docs/inbox.md). */
export interface SessionLimits {
  /** Unused this long, a session ends. */
  readonly idleSeconds: number;
  /** This long after its login, a session ends. */
  readonly lifetimeSeconds: number;
  /** Milliseconds since the epoch; tests move it. */
  readonly now: () => number;
}

/** 12 hours idle (a working day and its evening), 7 days in all (docs/inbox.md, "Anmelden"). */
export const DEFAULT_SESSION_LIMITS = { idleSeconds: 12 * 3600, lifetimeSeconds: 7 * 24 * 3600 } as const;

/** A session id: 256 random bits, base64url (43 characters). */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
/**
 * How long one process may hold a session's renewal: the renewal is one call of the token endpoint
 * (10 s at most, the API client's deadline) and one write, with room to spare. A process that dies
 * holding it delays the others by this much, once.
 */
const RENEWAL_LOCK_MS = 15_000;
/** How often a process waiting for another's renewal looks again (a renewal takes milliseconds). */
const RENEWAL_POLL_MS = 25;
const RELEASE_IF_OURS = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
/** Replaces the session only if it is still what was read: a renewal stored meanwhile wins over a use. */
const REPLACE_IF_UNCHANGED = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) else return 0 end";

/**
 * The sessions of the people's pages, in Redis, so that every web process serves every session and
 * any process may stop: nothing about a session lives in a process's memory.
 *
 * The browser holds only the session id, in an httpOnly cookie; the tokens never reach it. Redis holds
 * each session under a hash of its id, sealed with AES-256-GCM under a key derived from the id itself
 * (HKDF-SHA-256): whoever reads Redis without the browser's cookie can neither open a session nor
 * find which id it belongs to.
 *
 * Renewal (refresh-token rotation) must happen once per token: a second refresh with a used token
 * counts as reuse and revokes the whole family (docs/api.md, "Tokens"). Requests of one browser that
 * arrive together (a page and a poll, two tabs) may reach different processes, so the renewal takes
 * a lock in Redis; whoever finds it taken waits for the renewed session instead of renewing again.
 *
 * A session ends `idleSeconds` after the person's last request in it and `lifetimeSeconds` after its
 * login, whichever comes first: the record keeps both times, every load checks them, and Redis
 * keeps the record until then and no longer.
 */
export class SessionStore {
  private readonly limits: SessionLimits;

  constructor(
    private readonly redis: Redis,
    limits: Partial<SessionLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, now: Date.now, ...limits };
  }

  /** A new, unguessable session id. */
  newId(): string {
    return randomBytes(32).toString('base64url');
  }

  /** Stores a new session, logged in and used now. */
  async create(id: string, tokens: Omit<SessionRecord, 'createdAt' | 'lastSeenAt'>): Promise<SessionRecord> {
    const now = this.limits.now();
    const record = { ...tokens, createdAt: now, lastSeenAt: now };
    await this.save(id, record);
    return record;
  }

  /** Stores the session as given, until it ends by its times (gone at once if it has). */
  async save(id: string, record: SessionRecord): Promise<void> {
    const leftMs = this.endOf(record) - this.limits.now();
    if (leftMs > 0) await this.redis.set(keyOf(id), seal(id, record), 'PX', leftMs);
    else await this.remove(id);
  }

  /**
   * The session, or undefined for an id that is malformed, unknown, ended or does not open. `used`:
   * the person made this request, which starts the idle time again (in Redis only if the session is
   * still as read, so that a renewal stored meanwhile is never overwritten with the used tokens).
   */
  async load(id: string, options: { used?: boolean } = {}): Promise<SessionRecord | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const sealed = await this.redis.getBuffer(keyOf(id));
    const record = sealed ? open(id, sealed) : undefined;
    if (!sealed || !record) return undefined;
    const now = this.limits.now();
    if (this.endOf(record) <= now) {
      // Past its end, should Redis not have dropped it yet.
      await this.remove(id);
      return undefined;
    }
    if (!options.used) return record;
    const used = { ...record, lastSeenAt: now };
    await this.redis.eval(REPLACE_IF_UNCHANGED, 1, keyOf(id), sealed, seal(id, used), this.endOf(used) - now);
    return used;
  }

  async remove(id: string): Promise<void> {
    if (SESSION_ID.test(id)) await this.redis.del(keyOf(id));
  }

  /**
   * Renews the session once across every process: under the session's lock, `renew` runs only if
   * the session (read again under the lock) still `needsRenewal`; without the lock, it waits for
   * the process that has it and returns what that one stored. Undefined when the session is gone or
   * `renew` ended it.
   */
  async renewOnce(
    id: string,
    needsRenewal: (record: SessionRecord) => boolean,
    renew: (record: SessionRecord) => Promise<SessionRecord | undefined>,
  ): Promise<SessionRecord | undefined> {
    const lock = `${keyOf(id)}:renewal`;
    const deadline = Date.now() + RENEWAL_LOCK_MS + 1_000;
    for (;;) {
      const token = randomBytes(16).toString('base64url');
      if ((await this.redis.set(lock, token, 'PX', RENEWAL_LOCK_MS, 'NX')) === 'OK') {
        try {
          const current = await this.load(id);
          if (!current || !needsRenewal(current)) return current;
          const renewed = await renew(current);
          if (renewed) await this.save(id, renewed);
          else await this.remove(id);
          return renewed;
        } finally {
          await this.redis.eval(RELEASE_IF_OURS, 1, lock, token).catch(() => undefined);
        }
      }
      // Another process is renewing: its result is what this request uses.
      while ((await this.redis.exists(lock)) === 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, RENEWAL_POLL_MS));
      const current = await this.load(id);
      if (!current || !needsRenewal(current) || Date.now() >= deadline) return current;
      // Its holder gave up without renewing (it died, or the token service failed it): try again.
    }
  }

  /**
   * Keeps `value` beside the session under `slot` (an answer between its form and its confirmation:
   * docs/inbox.md, "Antworten"), sealed like the session under a key from its id, for `ttlSeconds`.
   * A record of its own, so that it never races a renewal of the session's tokens.
   */
  async keep(id: string, slot: string, value: unknown, ttlSeconds: number): Promise<void> {
    if (SESSION_ID.test(id)) await this.redis.set(keptKeyOf(id, slot), seal(id, value), 'EX', ttlSeconds);
  }

  /** What `keep` left under `slot`, or undefined (none, expired, or not this session's). */
  async kept(id: string, slot: string): Promise<unknown> {
    if (!SESSION_ID.test(id)) return undefined;
    const sealed = await this.redis.getBuffer(keptKeyOf(id, slot));
    return sealed ? openJson(id, sealed) : undefined;
  }

  async forget(id: string, slot: string): Promise<void> {
    if (SESSION_ID.test(id)) await this.redis.del(keptKeyOf(id, slot));
  }

  /** When the session ends: the earlier of its idle end and its lifetime's. */
  private endOf(record: SessionRecord): number {
    return Math.min(record.lastSeenAt + this.limits.idleSeconds * 1000, record.createdAt + this.limits.lifetimeSeconds * 1000);
  }
}

function keyOf(id: string): string {
  return `web:session:${createHash('sha256').update(id).digest('base64url')}`;
}

/** The slot's name hashed too: Redis shows neither the session nor what it keeps. */
function keptKeyOf(id: string, slot: string): string {
  return `${keyOf(id)}:kept:${createHash('sha256').update(slot).digest('base64url')}`;
}

function keyFor(id: string): Buffer {
  return Buffer.from(hkdfSync('sha256', id, Buffer.alloc(0), 'bedrequest web session v1', 32));
}

/** iv (12 bytes) ‖ tag (16) ‖ AES-256-GCM ciphertext of the record's JSON. */
function seal(id: string, record: unknown): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(id), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(record), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function open(id: string, sealed: Buffer): SessionRecord | undefined {
  const parsed = SessionRecord.safeParse(openJson(id, sealed));
  return parsed.success ? parsed.data : undefined;
}

function openJson(id: string, sealed: Buffer): unknown {
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(id), sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8'));
  } catch {
    return undefined;
  }
}
