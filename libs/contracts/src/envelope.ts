import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * Every message on the broker is one envelope. `type` and `version` name the payload schema; a
 * consumer parses the envelope, then the payload with the schema the catalog gives for them.
 * Versions are additive: a changed payload is a new version beside the old one, and a consumer
 * accepts the current and the previous version (docs/compatibility.md).
 */
export const Envelope = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  version: z.number().int().positive(),
  correlationId: z.string().min(1).max(128),
  occurredAt: z.iso.datetime({ offset: true }),
  payload: z.unknown(),
});
export type Envelope = z.infer<typeof Envelope>;

export interface MessageDefinition<P extends z.ZodType = z.ZodType, K extends string = string> {
  readonly type: string;
  readonly version: number;
  /** `<type>.v<version>`: the routing key and the catalog key (a literal type, so that handler maps are typed by it). */
  readonly routingKey: K;
  readonly payload: P;
  /**
   * Sent to whoever listens at the moment (an exclusive queue per process), not to a durable
   * queue: publishing it when nobody listens is not an error.
   */
  readonly broadcast?: boolean;
}

export type PayloadOf<D extends MessageDefinition> = z.infer<D['payload']>;

export interface TypedEnvelope<D extends MessageDefinition> extends Omit<Envelope, 'payload'> {
  payload: PayloadOf<D>;
}

export function defineMessage<T extends string, V extends number, P extends z.ZodType>(
  type: T,
  version: V,
  payload: P,
  options: { broadcast?: boolean } = {},
): MessageDefinition<P, `${T}.v${V}`> {
  return { type, version, routingKey: `${type}.v${version}`, payload, ...(options.broadcast ? { broadcast: true } : {}) };
}

export function createEnvelope<D extends MessageDefinition>(
  definition: D,
  payload: PayloadOf<D>,
  meta: { correlationId: string; id?: string; occurredAt?: Date },
): TypedEnvelope<D> {
  return {
    id: meta.id ?? randomUUID(),
    type: definition.type,
    version: definition.version,
    correlationId: meta.correlationId,
    occurredAt: (meta.occurredAt ?? new Date()).toISOString(),
    payload: definition.payload.parse(payload) as PayloadOf<D>,
  };
}
