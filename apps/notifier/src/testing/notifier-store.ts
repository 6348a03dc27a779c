import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { DataKeyConfig } from '@bedrequest/crypto';
import { uniqueName } from '@bedrequest/testing';
import { DeliveryRepository } from '../delivery/delivery.repository';
import { ADMISSION_RESPONSE_EVENT } from '../events/notifier.consumer';
import { EventRepository, type IncomingEvent } from '../events/event.repository';
import { notifierTables, openNotifierDatabase } from '../persistence/database';
import { openSealedFields } from '../persistence/sealed-fields';
import { SubscriptionRepository } from '../subscriptions/subscription.repository';

/**
 * A notifier schema of its own (migrated) with its repositories, for tests of the repositories
 * against the real PostgreSQL; `pool` reads and changes its rows directly. Values are sealed under
 * the schema's development key unless `keys` names a DATA_KEK. `close` when done. `migrationsDir`:
 * where the notifier's migrations are, for a bundle that does not find them from its own path (the bench).
 */
export async function openNotifierStore(databaseUrl: string, keys: Omit<DataKeyConfig, 'NODE_ENV'> = {}, migrationsDir?: string) {
  const schema = uniqueName('notifier');
  const prisma = await openNotifierDatabase({ databaseUrl, schema, poolSize: 4, ...(migrationsDir ? { migrationsDir } : {}) });
  const tables = notifierTables(schema);
  const { fields } = await openSealedFields({ NODE_ENV: 'test', NOTIFIER_DB_SCHEMA: schema, ...keys }, prisma);
  const subscriptions = new SubscriptionRepository(prisma, tables, fields);
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  return {
    schema,
    pool,
    prisma,
    fields,
    subscriptions,
    events: new EventRepository(prisma, tables, fields),
    deliveries: new DeliveryRepository(prisma, tables, fields),
    /** A new referring party with an AdmissionResponse subscription. */
    async subscribedParty(): Promise<{ partyId: string; subscriptionId: string }> {
      const partyId = `referrer-${randomUUID()}`;
      const created = await subscriptions.createIfAbsent({
        id: randomUUID(),
        partyId,
        eventType: ADMISSION_RESPONSE_EVENT,
        callbackUrl: 'http://127.0.0.1:9/hook',
        secret: 'whsec_c2VjcmV0',
      });
      return { partyId, subscriptionId: created!.id };
    },
    async close(): Promise<void> {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

export type NotifierStore = Awaited<ReturnType<typeof openNotifierStore>>;

/**
 * An AdmissionResponse event of `partyId` about `requestIdentifier`, as the consumer hands it to the
 * event store: new message and event ids, occurring now, a bare Task unless `overrides` say more.
 */
export function incomingEvent(partyId: string, requestIdentifier: string, overrides: Partial<IncomingEvent> = {}): IncomingEvent {
  return {
    messageId: randomUUID(),
    messageType: 'admission.response.v1',
    eventId: randomUUID(),
    eventType: ADMISSION_RESPONSE_EVENT,
    partyId,
    requestIdentifier,
    occurredAt: new Date(),
    data: { resourceType: 'Task' },
    ...overrides,
  };
}
