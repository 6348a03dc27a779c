import { z } from 'zod';

/*
 * A subscription's options (docs/webhooks.md, "Subscription options"): the body's form, heartbeats and
 * the signing secret's rotation. Declared apart from public-api.ts and internal-api.ts, which use them.
 */

/**
 * `full`: `data` is the Task as the clinic left it (notes included), as before. `id-only`: `data` is
 * the IdOnlyTask below; the receiver reads the Task with its own token (GET /api/v2/fhir/Task/{id}).
 */
export const PayloadForm = z
  .enum(['full', 'id-only'])
  .describe('The form of each webhook body and of events?since= items: `full` (default) the whole Task, `id-only` ids and state only');
export type PayloadForm = z.infer<typeof PayloadForm>;

/** The widest heartbeat interval: one a day. The narrowest is the deployment's WEBHOOK_HEARTBEAT_MIN (default 60 s). */
export const MAX_HEARTBEAT_SECONDS = 86_400;
export const HeartbeatSeconds = z
  .number()
  .int()
  .min(1)
  .max(MAX_HEARTBEAT_SECONDS)
  .nullable()
  .describe(
    `Send a signed Heartbeat event when nothing was delivered to the subscription for this many seconds; null: no heartbeats (default). At most ${MAX_HEARTBEAT_SECONDS}; at least 60 unless the deployment sets WEBHOOK_HEARTBEAT_MIN lower`,
  );

const IdentifierReference = z.strictObject({ identifier: z.looseObject({ system: z.string(), value: z.string() }) });

/**
 * The Task of an `id-only` subscription's events: enough to know which Task changed and how, nothing
 * of its notes or other content.
 */
export const IdOnlyTask = z
  .strictObject({
    resourceType: z.literal('Task'),
    id: z.guid().describe('The Task id: read it with GET /api/v2/fhir/Task/{id}'),
    basedOn: z.array(IdentifierReference).min(1).describe('The ServiceRequest identifier'),
    owner: IdentifierReference.describe("The clinic's IK"),
    businessStatus: z
      .looseObject({ coding: z.array(z.looseObject({ system: z.string(), code: z.string(), display: z.string().optional() })).min(1) })
      .optional()
      .describe("The clinic's latest answer; absent until there is one"),
    lastModified: z.iso.datetime({ offset: true }),
  })
  .describe('The Task of an id-only subscription: ids and state, no notes or other content');
export type IdOnlyTask = z.infer<typeof IdOnlyTask>;

/** The Task reduced to IdOnlyTask (made at delivery time from the stored full Task). */
export function idOnlyTask(task: unknown): IdOnlyTask {
  const full = task as Partial<IdOnlyTask> & Record<string, unknown>;
  return {
    resourceType: 'Task',
    id: String(full.id),
    basedOn: (full.basedOn ?? []).map((reference) => ({ identifier: reference.identifier })),
    owner: { identifier: full.owner?.identifier ?? { system: '', value: '' } },
    ...(full.businessStatus ? { businessStatus: full.businessStatus } : {}),
    lastModified: String(full.lastModified),
  };
}

/**
 * A Heartbeat (docs/webhooks.md, "Heartbeats"): sent when nothing was delivered to a subscription for
 * its `heartbeatSeconds`. No sequence number of its own; `data.lastSequence` is the subscription's
 * latest sequence number, so that a receiver that has seen less asks events?since=<its last>.
 */
export const HeartbeatWebhook = z.strictObject({
  id: z.uuid().describe('A new id for each heartbeat (and the webhook-id header)'),
  type: z.literal('Heartbeat'),
  timestamp: z.iso.datetime().describe('When the heartbeat was sent'),
  data: z.strictObject({
    subscriptionId: z.uuid().describe('The subscription the heartbeat is of'),
    eventType: z.string().describe('Its event type (AdmissionResponse or AdmissionOverdue)'),
    lastSequence: z
      .number()
      .int()
      .min(0)
      .describe("The sequence number of the subscription's latest event (0: none yet): a receiver that has seen less asks events?since=<its last>"),
  }),
});
export type HeartbeatWebhook = z.infer<typeof HeartbeatWebhook>;
