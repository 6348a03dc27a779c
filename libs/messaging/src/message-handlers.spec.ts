import { createEnvelope, ClinicRegistryChangedV1, RequestErasedV1, type MessageDefinition, type PayloadOf } from '@bedrequest/contracts';
import { captureLogger } from '@bedrequest/testing';
import type { ConsumedMessage } from './consumed-message';
import { handleByType, metaOf, type MessageHandlers } from './message-handlers';

const { logger, text } = captureLogger();

function consumed<D extends MessageDefinition>(definition: D, payload: PayloadOf<D>): ConsumedMessage {
  return {
    envelope: createEnvelope(definition, payload, { correlationId: 'handler-map' }),
    definition,
    previousDeliveries: 0,
    logger: logger.child({ messageType: definition.routingKey }),
    reply: async () => undefined,
  };
}

const erased = (requestIdentifier: string) =>
  consumed(RequestErasedV1, { requestIdentifier, referrerPartyId: 'party', reason: 'requested', erasedAt: '2026-11-26T10:00:00Z', tasks: [] });
const registryChanged = consumed(ClinicRegistryChangedV1, { clinic: { ik: '260000001', name: 'Klinik', departments: [] } });

// Only request.erased.v1: the payload is typed by its definition (no cast).
const handlers: MessageHandlers<string> = { [RequestErasedV1.routingKey]: (payload, message) => `${payload.requestIdentifier} ${metaOf(message).messageType}` };

describe('handleByType', () => {
  it('hands the work items of the handled types to apply, in order, and dead-letters a type the map does not name with one log line naming it', async () => {
    const applied: string[][] = [];
    const handler = handleByType(handlers, async (work) => {
      applied.push(work);
    });

    const outcomes = await handler([erased('R-1'), registryChanged, erased('R-2')]);

    expect(outcomes).toEqual(['ack', 'dead-letter', 'ack']);
    expect(applied).toEqual([['R-1 request.erased.v1', 'R-2 request.erased.v1']]);
    const lines = text()
      .split('\n')
      .filter((line) => line.includes('not handled'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, messageType: ClinicRegistryChangedV1.routingKey });
  });

  it("puts apply's outcomes back at their messages' places and does not call it when nothing is handled", async () => {
    let calls = 0;
    const handler = handleByType(handlers, async (work) => {
      calls++;
      return work.map((item) => (item.startsWith('R-2') ? 'retry' : 'ack'));
    });

    expect(await handler([registryChanged, erased('R-1'), registryChanged, erased('R-2')])).toEqual(['dead-letter', 'ack', 'dead-letter', 'retry']);
    expect(await handler([registryChanged])).toEqual(['dead-letter']);
    expect(calls).toBe(1);
  });
});
