export { checkReceiver, type ReceiverCheckLine, type ReceiverCheckResult } from './check-receiver';
export { ReceiverCheckOptionsError, type ReceiverCheckOptions } from './options';
