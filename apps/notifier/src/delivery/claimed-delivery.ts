import type { PayloadForm } from '@bedrequest/contracts';
import type { TraceContext } from '@bedrequest/messaging';
import type { ProtectedFields, StoredValue } from '../persistence/sealed-fields';

/** A due delivery a worker has claimed, with its subscription's address and secret as they are now. */
export interface ClaimedDelivery {
  eventId: string;
  subscriptionId: string;
  /** The subscriber: checked against the disabled parties before the attempt. */
  partyId: string;
  /** The request the event is about: its next event is not due before this one is delivered. */
  requestIdentifier: string;
  sequence: number;
  eventType: string;
  occurredAt: Date;
  data: unknown;
  /** Attempts made in the current schedule before this one. */
  attemptCount: number;
  leaseToken: string;
  callbackUrl: string;
  secret: string;
  /** The secret before a rotation, while its overlap runs: the webhook is signed with both. */
  previousSecret?: string;
  /** The subscription's body form: `id-only` sends the Task reduced at attempt time (IdOnlyTask). */
  payload: PayloadForm;
  /** The trace the event's message continued: each attempt is a span in it. */
  traceContext?: TraceContext;
}

/** A claimed delivery as read: its Task and its subscription's secret still as stored. */
export interface SealedClaim extends Omit<ClaimedDelivery, 'data' | 'secret' | 'previousSecret'> {
  data: StoredValue<unknown>;
  secret: Uint8Array | null;
  previousSecret: Uint8Array | null;
}

/**
 * A claimed delivery whose Task or secret does not open (its data key's KEK is not configured, or
 * the row was altered): it is not attempted, and is claimed again when its lease has run out.
 */
export interface UnreadableDelivery {
  eventId: string;
  subscriptionId: string;
  /** The key ids and the column, never the value. */
  reason: string;
}

export interface ClaimResult {
  claimed: ClaimedDelivery[];
  unreadable: UnreadableDelivery[];
}

/** Opens the Task and secret of each claim, in their order; those that do not open are set apart. */
export async function openClaims(claims: readonly SealedClaim[], fields: ProtectedFields): Promise<ClaimResult> {
  const opened = await Promise.all(
    claims.map(async (claim): Promise<ClaimedDelivery | UnreadableDelivery> => {
      try {
        const { previousSecret: sealedPrevious, ...rest } = claim;
        const [data, secret, previousSecret] = await Promise.all([
          fields.openData(claim.eventId, claim.data),
          fields.openSecret(claim.subscriptionId, claim.secret),
          sealedPrevious ? fields.openPreviousSecret(claim.subscriptionId, sealedPrevious) : undefined,
        ]);
        return { ...rest, data, secret, ...(previousSecret === undefined ? {} : { previousSecret }) };
      } catch (error) {
        return { eventId: claim.eventId, subscriptionId: claim.subscriptionId, reason: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  const result: ClaimResult = { claimed: [], unreadable: [] };
  for (const claim of opened) {
    if ('reason' in claim) result.unreadable.push(claim);
    else result.claimed.push(claim);
  }
  return result;
}
