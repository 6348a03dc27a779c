export { startDeadLetterSweep } from './dead-letter-sweep';
export { newCorrelationId, RequestErasureRepository, type ErasureReason, type ErasureResult, type Tombstone } from './request-erasure.repository';
export { RetentionJob, type DraftRetention, type RetentionPeriods } from './retention-job';
