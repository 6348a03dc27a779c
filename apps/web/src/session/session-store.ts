import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';

/** What a session holds: the person's token pair and who the tokens are for. */
export const SessionRecord = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  principal: z.object({ partyId: z.string(), role: z.enum(['referrer', 'clinic']), ikNumbers: z.array(z.string()) }),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

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
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly options: { ttlSeconds: number },
  ) {}

  /** A new, unguessable session id. */
  newId(): string {
    return randomBytes(32).toString('base64url');
  }

  async save(id: string, record: SessionRecord): Promise<void> {
    await this.redis.set(keyOf(id), seal(id, record), 'EX', this.options.ttlSeconds);
  }

  /** The session, or undefined for an id that is malformed, unknown, expired or does not open. */
  async load(id: string): Promise<SessionRecord | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const sealed = await this.redis.getBuffer(keyOf(id));
    return sealed ? open(id, sealed) : undefined;
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
}

function keyOf(id: string): string {
  return `web:session:${createHash('sha256').update(id).digest('base64url')}`;
}

function keyFor(id: string): Buffer {
  return Buffer.from(hkdfSync('sha256', id, Buffer.alloc(0), 'bedrequest web session v1', 32));
}

/** iv (12 bytes) ‖ tag (16) ‖ AES-256-GCM ciphertext of the record's JSON. */
function seal(id: string, record: SessionRecord): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(id), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(record), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function open(id: string, sealed: Buffer): SessionRecord | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(id), sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    const json = Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
    const parsed = SessionRecord.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
