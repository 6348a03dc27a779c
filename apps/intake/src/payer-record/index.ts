export { PayerRecordRepository } from './payer-record.repository';
export { PayerRecordService, ReadyForTransferInput } from './payer-record.service';
export { MAX_VERIFIED_RECORD_BYTES, payerRecordRouter } from './payer-record.router';
export { RecordSigningKeys } from './record-signing-keys';
export { verifyRecord, type RecordVerification } from './record-signature';
export { RECORD_CLI, type RecordCliServices } from './record-cli';
