import { z } from 'zod';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, PageLimit } from './public-api';

/**
 * `GET /api/v1/subscriptions/{id}/deliveries` (docs/webhooks.md, "Delivery log and manual retry"):
 * its query, checked alike by the gateway (before it calls the notifier) and the notifier, and the
 * cursor its `next` carries.
 */

/** What the log tells apart: waiting for an attempt, delivered, given up, or not sent (the subscriber may no longer see the Task). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'withheld'] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** Why a delivery was withheld (docs/webhooks.md, "Authorization at delivery time"). */
export const WITHHELD_REASONS = ['party-disabled', 'request-erased'] as const;
export const WithheldReason = z.enum(WITHHELD_REASONS);
export type WithheldReason = z.infer<typeof WithheldReason>;

const CURSOR_PREFIX = 'seq:';

/** The opaque cursor of the page after the entry with this sequence number (base64url). */
export function deliveryLogCursor(sequence: number): string {
  return btoa(`${CURSOR_PREFIX}${sequence}`).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** `?cursor=`: as `next` writes it; read back as the sequence number the next page lists entries below. */
export const DeliveryLogCursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,40}$/)
  .transform((text, context) => {
    let decoded = '';
    try {
      decoded = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
    } catch {
      // not base64: refused below
    }
    const sequence = decoded.startsWith(CURSOR_PREFIX) ? Number(decoded.slice(CURSOR_PREFIX.length)) : Number.NaN;
    if (!Number.isSafeInteger(sequence) || sequence < 1 || deliveryLogCursor(sequence) !== text) {
      context.addIssue({ code: 'custom', message: 'not a cursor of this log' });
      return z.NEVER;
    }
    return sequence;
  })
  .describe("Paging: as the answer's `next` writes it (opaque); the page after the one that gave it");

/** `?status=`: one status or several, comma-separated. */
export const DeliveryStatusFilter = z
  .string()
  .transform((text) => text.split(','))
  .pipe(z.array(DeliveryStatus).min(1))
  .describe(`Only entries of these statuses, comma-separated: ${DELIVERY_STATUSES.join(', ')}`);

/** `?since=`: an ISO 8601 time with its offset; entries of events stored at or after it. */
export const DeliveryLogSince = z.iso
  .datetime({ offset: true })
  .transform((text) => new Date(text))
  .describe('Only entries of events stored at or after this time (ISO 8601 with Z or an offset, e.g. 2026-12-07T08:00:00Z)');

/** The query: every parameter optional; `limit` as before (default 100, at most 1000). */
export const DeliveryLogQuery = z.object({
  limit: PageLimit.optional(),
  cursor: DeliveryLogCursor.optional(),
  status: DeliveryStatusFilter.optional(),
  since: DeliveryLogSince.optional(),
});

export interface DeliveryLogParameters {
  limit: number;
  /** The cursor's sequence number: entries below it. */
  before?: number;
  statuses?: DeliveryStatus[];
  since?: Date;
  /** The parameters as given (cursor aside), for the `next` link, which repeats them. */
  repeated: URLSearchParams;
}

const MESSAGES = {
  limit: `limit must be a number from 1 to ${MAX_PAGE_LIMIT}`,
  cursor: "cursor must be a cursor as the log's next writes it",
  status: `status must be one or more of ${DELIVERY_STATUSES.join(', ')}, comma-separated`,
  since: 'since must be an ISO 8601 time with Z or an offset (e.g. 2026-12-07T08:00:00Z)',
} as const;

/**
 * Reads the query (other parameters are ignored, as before): the parameters, or the message of the
 * first bad one (400 `invalid_request`), which names it.
 */
export function parseDeliveryLogQuery(query: Record<string, unknown>): { parameters: DeliveryLogParameters } | { refusal: string } {
  const repeated = new URLSearchParams();
  const values: Partial<Record<keyof typeof MESSAGES, unknown>> = {};
  for (const name of Object.keys(MESSAGES) as (keyof typeof MESSAGES)[]) {
    const value = query[name];
    if (value === undefined) continue;
    const parsed = DeliveryLogQuery.shape[name].safeParse(value);
    if (typeof value !== 'string' || !parsed.success) return { refusal: MESSAGES[name] };
    values[name] = parsed.data;
    if (name !== 'cursor') repeated.set(name, value);
  }
  return {
    parameters: {
      limit: (values.limit as number | undefined) ?? DEFAULT_PAGE_LIMIT,
      ...(values.cursor === undefined ? {} : { before: values.cursor as number }),
      ...(values.status === undefined ? {} : { statuses: values.status as DeliveryStatus[] }),
      ...(values.since === undefined ? {} : { since: values.since as Date }),
      repeated,
    },
  };
}

/** The `next` of a page: the query of the next page, a relative reference (`?limit=…&cursor=…`), repeating every other parameter. */
export function nextDeliveryLogPage(parameters: DeliveryLogParameters, lastSequence: number): string {
  const query = new URLSearchParams(parameters.repeated);
  query.set('cursor', deliveryLogCursor(lastSequence));
  return `?${query.toString()}`;
}
