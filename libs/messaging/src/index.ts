export { Broker, type BrokerOptions, type ConsumedMessage, type HandlerOutcome, type MessageHandler } from './broker';
export { BrokerUnavailableError, PublishRejectedError } from './errors';
export { OutboxRelay, outboxRecord, startOutboxRelay, OUTBOX_TABLE_SQL, type OutboxRecord } from './outbox';
export { assertTopology, type BrokerTopology } from './topology';
export { connectServiceBroker } from './service-broker';
