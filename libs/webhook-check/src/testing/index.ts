export { startTestReceiver, type ReceiverMistake, type TestReceiver, type TestReceiverOptions } from './test-receiver';
