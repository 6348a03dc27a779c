import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { SignatureCheck, type KnownSecret } from './signature-check';

/** The largest body a receiver keeps: 1 MiB (a full Task with its notes is a few KiB); a larger one is answered 413. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The deliveries kept per receiver: the newest 200. */
export const KEPT_DELIVERIES = 200;
/** A delivery is kept 7 days after the receiver's latest (each one renews the list's expiry). */
const DELIVERIES_TTL_SECONDS = 7 * 86_400;
/**
 * A receiver (its address and secrets) outlives its deliveries: 90 days after the party last opened
 * the page or received a delivery, so that a subscription pointing at it keeps working meanwhile.
 */
const RECEIVER_TTL_SECONDS = 90 * 86_400;
/** A receiver token: 256 random bits, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** How a delivery was answered: a status, or no answer in time (held until the caller gave up). */
const Answer = z.discriminatedUnion('kind', [z.object({ kind: z.literal('status'), status: z.number().int() }), z.object({ kind: z.literal('timeout') })]);
export type ReceiverAnswer = z.infer<typeof Answer>;

/** One POST to a receiver, as recorded: every header as sent, the body as received (absent when too large). */
export const RecordedDelivery = z.object({
  id: z.number().int(),
  receivedAt: z.string(),
  headers: z.array(z.tuple([z.string(), z.string()])),
  body: z.string().optional(),
  bodyBytes: z.number().int(),
  check: SignatureCheck,
  answer: Answer,
  /** Answered with a failure because of the fail-next setting, not because of the delivery. */
  failedOnPurpose: z.boolean(),
});
export type RecordedDelivery = z.infer<typeof RecordedDelivery>;

/** What the next deliveries meet (fail-next): a status of 400..599, or no answer in time. */
export type FailureMode = { kind: 'status'; status: number } | { kind: 'timeout' };

/**
 * Takes one failure for the delivery at hand, in one step for every web process: its mode, or
 * nothing when none is left. INCRBY -1 rather than DECR: the web app's Redis user may run the
 * commands its sessions need and no others (tools/provision), and a script's are checked alike.
 */
const TAKE_FAILURE = `local left = tonumber(redis.call('get', KEYS[1]) or '0')
if left <= 0 then return false end
redis.call('incrby', KEYS[1], -1)
return redis.call('get', KEYS[2])`;

/** The secrets a receiver may know: one per subscription's event type, and one the person entered. */
export const SECRET_LABELS = ['AdmissionResponse', 'AdmissionOverdue', 'entered'] as const;
export type SecretLabel = (typeof SECRET_LABELS)[number];

/**
 * The webhook inspector's receivers in the web app's Redis (docs/workspace.md, "Webhook-Inspektor
 * (nur Sandbox)"), below its key prefix and `web:` like the sessions: one receiver per referrer
 * party, named by a random token (its address), with the secrets it checks signatures with, its
 * recorded deliveries (the newest KEPT_DELIVERIES, for 7 days) and the failures it is to answer
 * next. Every web process reads and writes the same keys, so any of them receives, counts and shows.
 *
 * Plain strings and counters only (GET, SET, INCR, EXPIRE, DEL): what the web app's Redis user may
 * run. Each delivery is a key of its own, numbered by the receiver's counter; the newest are read
 * by number, and recording one deletes the one KEPT_DELIVERIES before it.
 */
export class ReceiverStore {
  constructor(private readonly redis: Redis) {}

  /** The party's receiver token, made on first use. */
  async receiverOf(partyId: string): Promise<string> {
    const byParty = partyKey(partyId);
    // Two processes may make one at once: the first kept wins, and both read it.
    await this.redis.set(byParty, randomBytes(32).toString('base64url'), 'EX', RECEIVER_TTL_SECONDS, 'NX');
    const token = await this.redis.get(byParty);
    if (!token) throw new Error('the sandbox receiver could not be kept in Redis');
    await this.redis.multi().expire(byParty, RECEIVER_TTL_SECONDS).set(receiverKey(token), partyId, 'EX', RECEIVER_TTL_SECONDS).exec();
    return token;
  }

  /** The party's receiver token if it has one, changing nothing (the page's polls). */
  async findReceiver(partyId: string): Promise<string | undefined> {
    return (await this.redis.get(partyKey(partyId))) ?? undefined;
  }

  /** The party a receiver token belongs to; undefined for one never made (or expired). */
  async partyOf(token: string): Promise<string | undefined> {
    if (!TOKEN.test(token)) return undefined;
    return (await this.redis.get(receiverKey(token))) ?? undefined;
  }

  async secrets(token: string): Promise<KnownSecret[]> {
    const values = await this.getAll(SECRET_LABELS.map((label) => secretKey(token, label)));
    return SECRET_LABELS.flatMap((label, index) => (values[index] ? [{ label, secret: values[index] }] : []));
  }

  /** Keeps a secret under its label (replacing the label's), or forgets the label's (`undefined`). */
  async setSecret(token: string, label: SecretLabel, secret: string | undefined): Promise<void> {
    if (secret === undefined) await this.redis.del(secretKey(token, label));
    else await this.redis.set(secretKey(token, label), secret, 'EX', RECEIVER_TTL_SECONDS);
  }

  /**
   * Records a delivery to the party's receiver as the newest, and drops the one KEPT_DELIVERIES
   * before it. A delivery keeps the receiver (its address and secrets) as opening the page does.
   */
  async record(token: string, partyId: string, delivery: Omit<RecordedDelivery, 'id'>): Promise<RecordedDelivery> {
    const id = await this.redis.incr(lastIdKey(token));
    const recorded = { id, ...delivery };
    const transaction = this.redis
      .multi()
      .set(deliveryKey(token, id), JSON.stringify(recorded), 'EX', DELIVERIES_TTL_SECONDS)
      .del(deliveryKey(token, id - KEPT_DELIVERIES));
    for (const key of [lastIdKey(token), receiverKey(token), partyKey(partyId), ...SECRET_LABELS.map((label) => secretKey(token, label))]) {
      transaction.expire(key, RECEIVER_TTL_SECONDS);
    }
    await transaction.exec();
    return recorded;
  }

  /** The newest deliveries first, at most `limit`, only those after `since` (an id) when given. */
  async deliveries(token: string, options: { limit: number; since?: number }): Promise<RecordedDelivery[]> {
    const [last, cleared] = (await this.getAll([lastIdKey(token), clearedKey(token)])).map((value) => Number(value ?? 0));
    const oldest = Math.max((last ?? 0) - Math.min(options.limit, KEPT_DELIVERIES) + 1, (cleared ?? 0) + 1, (options.since ?? 0) + 1);
    const ids: number[] = [];
    for (let id = last ?? 0; id >= oldest; id -= 1) ids.push(id);
    const items = await this.getAll(ids.map((id) => deliveryKey(token, id)));
    return items.flatMap((item) => (item ? [RecordedDelivery.parse(JSON.parse(item))] : []));
  }

  /** Forgets the deliveries recorded so far: the list shows only those after them. */
  async clearDeliveries(token: string): Promise<void> {
    const last = (await this.redis.get(lastIdKey(token))) ?? '0';
    await this.redis.set(clearedKey(token), last, 'EX', RECEIVER_TTL_SECONDS);
  }

  /** The next `count` deliveries fail as `mode`. */
  async failNext(token: string, count: number, mode: FailureMode): Promise<void> {
    const stored = mode.kind === 'timeout' ? 'timeout' : String(mode.status);
    await this.redis.multi().set(failCountKey(token), count, 'EX', DELIVERIES_TTL_SECONDS).set(failModeKey(token), stored, 'EX', DELIVERIES_TTL_SECONDS).exec();
  }

  /** No more failures: the next deliveries are answered 204 again. */
  async stopFailing(token: string): Promise<void> {
    await this.redis.multi().del(failCountKey(token)).del(failModeKey(token)).exec();
  }

  /** The failures left and their mode. */
  async failures(token: string): Promise<{ left: number; mode?: FailureMode }> {
    const [count, mode] = await this.getAll([failCountKey(token), failModeKey(token)]);
    const left = Math.max(0, Number(count ?? 0) || 0);
    const parsed = modeOf(mode);
    return left > 0 && parsed ? { left, mode: parsed } : { left: 0 };
  }

  /** Takes one failure for the delivery at hand: its mode, or undefined when none is left. */
  async takeFailure(token: string): Promise<FailureMode | undefined> {
    const mode = (await this.redis.eval(TAKE_FAILURE, 2, failCountKey(token), failModeKey(token))) as string | null;
    return modeOf(mode);
  }

  /** Several keys' values in one round trip, in order (GETs in a pipeline: MGET is no command the web app's user may run). */
  private async getAll(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.get(key);
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      return (value as string | null) ?? null;
    });
  }
}

function modeOf(stored: string | null | undefined): FailureMode | undefined {
  if (stored === 'timeout') return { kind: 'timeout' };
  const status = Number(stored);
  return Number.isInteger(status) && status >= 400 && status <= 599 ? { kind: 'status', status } : undefined;
}

const partyKey = (partyId: string) => `web:sandbox:party-receiver:${partyId}`;
const receiverKey = (token: string) => `web:sandbox:receiver:${token}`;
const secretKey = (token: string, label: SecretLabel) => `${receiverKey(token)}:secret:${label}`;
const lastIdKey = (token: string) => `${receiverKey(token)}:last-id`;
const clearedKey = (token: string) => `${receiverKey(token)}:cleared-up-to`;
const deliveryKey = (token: string, id: number) => `${receiverKey(token)}:delivery:${id}`;
const failCountKey = (token: string) => `${receiverKey(token)}:fail-count`;
const failModeKey = (token: string) => `${receiverKey(token)}:fail-mode`;
