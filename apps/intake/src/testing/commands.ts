import { AdmissionBundleSubmittedV1, ClinicAnswerSubmittedV1, createEnvelope, DocumentBundleSubmittedV1, type Submitter } from '@bedrequest/contracts';
import { admissionRequestSummary, fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, documentBundle, type FixtureDocument } from '@bedrequest/fhir-model/testing';
import { workOf } from '@bedrequest/messaging';
import { intakeCommands, type IntakeCommand } from '../requests';

// Intake's commands as the gateway's messages bring them, for tests that drive IntakeService.

/** An AdmissionRequestBundle of the fixture, validated and summarised as the gateway does. */
export function admissionCommand(options: Parameters<typeof admissionRequestBundle>[0], submitter: Submitter, answerDeadline?: string): IntakeCommand {
  const bundle = admissionRequestBundle(options) as unknown as Record<string, unknown> & { entry: { resource: Record<string, unknown> }[] };
  // The answer-deadline extension (docs/api.md, "Answer deadlines"), which the fixture does not write.
  const serviceRequest = bundle.entry.find((entry) => entry.resource['resourceType'] === 'ServiceRequest');
  if (answerDeadline && serviceRequest) serviceRequest.resource['extension'] = [{ url: fhirSystems().answerDeadlineExtension, valueDateTime: answerDeadline }];
  const validation = validateAdmissionRequestBundle(bundle, { profileBase: fhirSystems().profileBase });
  if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
  const envelope = createEnvelope(
    AdmissionBundleSubmittedV1,
    { submitter, receivedAt: new Date().toISOString(), bundle, request: admissionRequestSummary(validation.bundle) },
    { correlationId: 'test' },
  );
  return workOf(intakeCommands, { envelope, definition: AdmissionBundleSubmittedV1 });
}

/** A DocumentBundle for the request: of one document, or the fixture's default documents. */
export function documentCommand(requestIdentifier: string, submitter: Submitter, document?: FixtureDocument): IntakeCommand {
  const bundle = documentBundle({ requestIdentifier, ...(document ? { documents: [document] } : {}) }) as unknown as Record<string, unknown>;
  const envelope = createEnvelope(
    DocumentBundleSubmittedV1,
    { submitter, receivedAt: new Date().toISOString(), bundle, requestIdentifier },
    { correlationId: 'test' },
  );
  return workOf(intakeCommands, { envelope, definition: DocumentBundleSubmittedV1 });
}

/** A clinic person's answer to its Task (by `clinic-user` unless `user` says; `userName` their display name). */
export function clinicAnswerCommand(answer: {
  taskId: string;
  clinicIk: string;
  businessStatus: 'accepted' | 'declined' | 'query';
  note?: string;
  user?: string;
  userName?: string;
}): IntakeCommand {
  const envelope = createEnvelope(ClinicAnswerSubmittedV1, { user: 'clinic-user', ...answer, source: 'clinic' }, { correlationId: 'test' });
  return workOf(intakeCommands, { envelope, definition: ClinicAnswerSubmittedV1 });
}

/** routing's automatic answer from the clinic's bed counts, for version `answersVersion` of the request. */
export function automaticAnswerCommand(answer: {
  taskId: string;
  clinicIk: string;
  businessStatus: 'accepted' | 'declined';
  note?: string;
  answersVersion: number;
}): IntakeCommand {
  const envelope = createEnvelope(ClinicAnswerSubmittedV1, { ...answer, source: 'automatic' }, { correlationId: 'test' });
  return workOf(intakeCommands, { envelope, definition: ClinicAnswerSubmittedV1 });
}
