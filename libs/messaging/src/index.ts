export { Broker, type BrokerOptions, type ConsumedMessage, type HandlerOutcome, type MessageHandler } from './broker';
export { BrokerUnavailableError, PublishRejectedError } from './errors';
export { assertTopology, type BrokerTopology } from './topology';
