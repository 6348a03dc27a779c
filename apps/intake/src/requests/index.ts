export { AdmissionRequestRepository, type LoadedState } from './admission-request.repository';
export { bundleFingerprint, type BundleFingerprint } from './bundle-fingerprint';
export { intakeCommands, type FingerprintedCommand, type IntakeCommand } from './intake-commands';
export { IntakeService } from './intake.service';
export { DEFAULT_REQUEST_LIMITS, type RequestLimits } from './request-limits';
export type { RequestRowBase } from './request-rows';
