import {
  AdmissionBundleSubmittedV1,
  ClinicAnswerSubmittedV1,
  DocumentBundleSubmittedV1,
  type AdmissionRequestSummary,
  type Submitter,
} from '@bedrequest/contracts';
import { metaOf, type MessageHandlers, type MessageMeta } from '@bedrequest/messaging';
import type { BundleFingerprint } from './bundle-fingerprint';

/** One message of a batch, read and checked against its contract (see `intakeCommands`). */
export type IntakeCommand = { meta: MessageMeta } & (
  | { kind: 'admission'; submitter: Submitter; bundle: Record<string, unknown>; request: AdmissionRequestSummary }
  | { kind: 'document'; submitter: Submitter; bundle: Record<string, unknown>; requestIdentifier: string }
  | { kind: 'answer'; answer: ClinicAnswerSubmittedV1 }
);

type WithBundle = Extract<IntakeCommand, { bundle: unknown }>;

/**
 * A command as a batch applies it: one with a bundle carries the bundle's fingerprint, made with
 * intake's fingerprint key when the batch is handled (IntakeService.handle).
 */
export type FingerprintedCommand = Exclude<IntakeCommand, WithBundle> | (WithBundle & { fingerprint: BundleFingerprint });

/** The command of each message intake consumes (the intake queue's bindings, libs/contracts topology). */
export const intakeCommands: MessageHandlers<IntakeCommand> = {
  [AdmissionBundleSubmittedV1.routingKey]: ({ submitter, bundle, request }, message) => ({
    kind: 'admission',
    meta: metaOf(message),
    submitter,
    bundle,
    request,
  }),
  [DocumentBundleSubmittedV1.routingKey]: ({ submitter, bundle, requestIdentifier }, message) => ({
    kind: 'document',
    meta: metaOf(message),
    submitter,
    bundle,
    requestIdentifier,
  }),
  [ClinicAnswerSubmittedV1.routingKey]: (answer, message) => ({ kind: 'answer', meta: metaOf(message), answer }),
};
