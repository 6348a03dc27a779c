import { Prisma } from '../generated/prisma/client';
import type { DeadLetter } from '@bedrequest/messaging';
import { type IntakeDatabase, requestWriterTables } from '../persistence';

/** The request a dead letter is about: its identifier, its referrer, and whether its patient data was erased. */
export interface DeadLetterRequest {
  identifier: string;
  ownerPartyId: string;
  erased: boolean;
}

/** What a message names of its request, as far as it can be read. */
export interface RequestKeys {
  identifier?: string;
  /** A clinic's answer names its Task only. */
  taskId?: string;
  /** The referrer the message names (the submitter of a bundle, the referrer of an event). */
  ownerPartyId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The keys of a dead letter's request, read from its body as loosely as possible: a message is
 * often dead-lettered because it does not match its schema, and it still belongs to its request.
 * Where each message of libs/contracts names it: `payload.request.identifier` (an admission bundle),
 * `payload.requestIdentifier` (a document bundle, request.dispatched, admission.response,
 * request.erased), `payload.taskId` (a clinic's answer); the referrer as `payload.submitter.partyId`
 * or `payload.referrerPartyId`.
 */
export function requestKeysOf(body: unknown): RequestKeys {
  const payload = recordOf(recordOf(body)?.['payload']);
  if (!payload) return {};
  const identifier = textOf(recordOf(payload['request'])?.['identifier']) ?? textOf(payload['requestIdentifier']);
  const taskId = textOf(payload['taskId']);
  const ownerPartyId = textOf(recordOf(payload['submitter'])?.['partyId']) ?? textOf(payload['referrerPartyId']);
  return {
    ...(identifier ? { identifier } : {}),
    ...(taskId && UUID.test(taskId) ? { taskId: taskId.toLowerCase() } : {}),
    ...(ownerPartyId ? { ownerPartyId } : {}),
  };
}

/**
 * Finds the requests of dead letters in intake's schema: by identifier, or by Task for a clinic's
 * answer. The referrer intake stored wins over the one a message names. A request intake does not
 * know (its first bundle is the dead letter) is the message's own, and not erased.
 */
export class DeadLetterRequests {
  private readonly t: ReturnType<typeof requestWriterTables>;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
  ) {
    this.t = requestWriterTables(schema);
  }

  /** The request of each letter, in order; undefined for one that names none intake can find. */
  async of(letters: readonly DeadLetter[]): Promise<(DeadLetterRequest | undefined)[]> {
    const keys = letters.map((letter) => requestKeysOf(letter.body));
    const identifiers = [...new Set(keys.flatMap((key) => (key.identifier ? [key.identifier] : [])))];
    const taskIds = [...new Set(keys.flatMap((key) => (!key.identifier && key.taskId ? [key.taskId] : [])))];
    if (identifiers.length === 0 && taskIds.length === 0) return keys.map(() => undefined);
    const t = this.t;
    const rows = await this.prisma.$queryRaw<{ identifier: string; owner: string; task_id: string | null; erased: boolean }[]>(Prisma.sql`
      SELECT r.identifier, r.referrer_party_id AS owner, NULL::text AS task_id,
             EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id) AS erased
        FROM ${t.request} r WHERE r.identifier = ANY(${identifiers}::text[])
      UNION ALL
      SELECT r.identifier, r.referrer_party_id, c.id::text,
             EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id)
        FROM ${t.task} c JOIN ${t.request} r ON r.id = c.request_id WHERE c.id = ANY(${taskIds}::uuid[])`);
    const byIdentifier = new Map(rows.filter((row) => row.task_id === null).map((row) => [row.identifier, row]));
    const byTask = new Map(rows.flatMap((row) => (row.task_id === null ? [] : [[row.task_id, row] as const])));
    return keys.map((key) => {
      const row = key.identifier ? byIdentifier.get(key.identifier) : key.taskId ? byTask.get(key.taskId) : undefined;
      if (row) return { identifier: row.identifier, ownerPartyId: row.owner, erased: row.erased };
      return key.identifier ? { identifier: key.identifier, ownerPartyId: key.ownerPartyId ?? '', erased: false } : undefined;
    });
  }
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
