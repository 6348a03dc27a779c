export { Broker, type BrokerOptions } from './broker';
export { type BatchHandler } from './batch-consumer';
export { type ConsumedMessage, type HandlerOutcome } from './consumed-message';
export { handleByType, metaOf, workOf, type MessageHandlers, type MessageMeta, type ReceivedMessage } from './message-handlers';
export { BrokerUnavailableError, PublishRejectedError } from './errors';
export { OutboxRelay, outboxRecord, outboxRow, oldestMessageAgeSql, relayBatchSql, startOutboxRelay, OUTBOX_TABLE_SQL, type OutboxRecord } from './outbox';
export { contextFrom, traceContextOf, type TraceContext } from './trace-context';
export { assertTopology, declareBrokerTopology, type BrokerTopology } from './topology';
export { connectServiceBroker } from './service-broker';
export { WakeUpLoop, type WakeUpLoopOptions } from './wake-up-loop';
export { PeriodicRun, type PeriodicRunOptions } from './periodic-run';
export {
  DeadLetterQueues,
  firstDeathOf,
  type DeadLetter,
  type DeadLetterDecider,
  type DeadLetterDecision,
  type DeadLetterPass,
  type FirstDeath,
} from './dead-letters';
