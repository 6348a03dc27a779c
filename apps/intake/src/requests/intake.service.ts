import { randomUUID } from 'node:crypto';
import {
  AdmissionResponseV1,
  RequestDispatchedV1,
  type AdmissionBundleSubmittedV1,
  type ClinicAnswerSubmittedV1,
  type DocumentBundleSubmittedV1,
  type IntakeVerdictV1,
} from '@bedrequest/contracts';
import { validateAdmissionRequestBundle, validateDocumentBundle, type FhirSystems, type Issue } from '@bedrequest/fhir-model';
import { outboxRecord } from '@bedrequest/messaging';
import { toFhirTask } from '../tasks/task-resource';
import type { AdmissionRequestRepository, Tx } from './admission-request.repository';
import { canonicalHash } from './canonical-json';
import { answerTask, decide } from './request-state-machine';

/** Metadata of the message being processed: its id keys the inbox, its correlation id travels on. */
export interface MessageMeta {
  messageId: string;
  messageType: string;
  correlationId: string;
}

const verdict = (status: number, outcome: IntakeVerdictV1['outcome'], issues: Issue[] = [], extra: Partial<IntakeVerdictV1> = {}): IntakeVerdictV1 => ({
  status,
  outcome,
  issues: issues.map(({ code, diagnostics, expression }) => ({ code, diagnostics, ...(expression ? { expression } : {}) })),
  ...extra,
});
const rejected = (status: number, code: Issue['code'], diagnostics: string) => verdict(status, 'rejected', [{ code, diagnostics }]);

/**
 * Intake's use cases. Each runs in one transaction together with its inbox row (so a redelivered
 * message gets the same verdict and changes nothing) and the messages it causes (outbox).
 */
export class IntakeService {
  constructor(
    private readonly repository: AdmissionRequestRepository,
    private readonly systems: FhirSystems,
    private readonly now: () => Date = () => new Date(),
  ) {}

  submitAdmissionRequest(payload: AdmissionBundleSubmittedV1, meta: MessageMeta): Promise<IntakeVerdictV1> {
    return this.once(meta, async (tx) => {
      const validation = validateAdmissionRequestBundle(payload.bundle, { profileBase: this.systems.profileBase });
      if (!validation.ok) return verdict(400, 'rejected', validation.issues);
      const bundle = validation.bundle;
      const identifier = bundle.requestIdentifier;

      await this.repository.lockIdentifier(tx, identifier);
      const existing = await this.repository.findByIdentifier(tx, identifier);
      if (existing && existing.referrerPartyId !== payload.submitter.partyId) {
        return rejected(403, 'forbidden', 'this request identifier belongs to another referrer');
      }
      const hash = canonicalHash(payload.bundle);
      const decision = decide(existing, {
        hash,
        status: bundle.status,
        intent: bundle.intent,
        orderDetail: bundle.orderDetail,
        performerIks: bundle.performerIks,
        patient: bundle.patient,
      });
      if (decision.kind === 'reject') return rejected(decision.status, decision.code, decision.diagnostics);
      if (decision.kind === 'unchanged') return verdict(202, 'unchanged', [], { requestIdentifier: identifier });

      const { version, taskIds } = await this.repository.applyChange(tx, {
        existing,
        identifier,
        referrerPartyId: payload.submitter.partyId,
        referrerIk: bundle.requesterIk,
        next: decision.next,
        version: { bundle: payload.bundle, canonicalHash: hash, messageId: meta.messageId },
        tasks: decision.tasks,
        now: this.now(),
      });
      await this.repository.addToOutbox(tx, [
        outboxRecord(
          RequestDispatchedV1,
          {
            requestIdentifier: identifier,
            referrerPartyId: payload.submitter.partyId,
            version,
            change: decision.change,
            departmentCode: bundle.departmentCode,
            ...(bundle.specialty ? { specialty: bundle.specialty } : {}),
            ...(bundle.occurrenceDate ? { occurrenceDate: bundle.occurrenceDate } : {}),
            tasks: decision.tasks.map((task) => ({ taskId: taskIds.get(task.clinicIk)!, clinicIk: task.clinicIk, action: task.action })),
          },
          { correlationId: meta.correlationId },
        ),
      ]);
      return verdict(202, 'accepted', [], { requestIdentifier: identifier });
    });
  }

  submitDocument(payload: DocumentBundleSubmittedV1, meta: MessageMeta): Promise<IntakeVerdictV1> {
    return this.once(meta, async (tx) => {
      const validation = validateDocumentBundle(payload.bundle, { profileBase: this.systems.profileBase });
      if (!validation.ok) return verdict(400, 'rejected', validation.issues);
      const identifier = validation.bundle.requestIdentifier;
      await this.repository.lockIdentifier(tx, identifier);
      const request = await this.repository.findByIdentifier(tx, identifier);
      // decisions.md: "a document for an unknown or foreign request is 404/403".
      if (!request) return rejected(404, 'not-found', 'there is no request with this identifier');
      if (request.referrerPartyId !== payload.submitter.partyId) return rejected(403, 'forbidden', 'the request belongs to another referrer');
      // decisions.md: further bundles for a revoked identifier are rejected with 409, documents too.
      if (request.status === 'revoked') return rejected(409, 'conflict', 'the request was revoked; no further bundles are accepted for it');
      const stored = await this.repository.addDocument(tx, {
        requestId: request.id,
        bundle: payload.bundle,
        canonicalHash: canonicalHash(payload.bundle),
        messageId: meta.messageId,
        now: this.now(),
      });
      return verdict(202, stored ? 'accepted' : 'unchanged', [], { requestIdentifier: identifier });
    });
  }

  /** A clinic's answer (decisions.md, "Clinics answer"): 404 for another clinic's Task, 409 when cancelled or revoked. */
  answer(payload: ClinicAnswerSubmittedV1, meta: MessageMeta): Promise<IntakeVerdictV1> {
    return this.once(meta, async (tx) => {
      const found = await this.repository.findTaskView(tx, payload.taskId);
      if (!found || found.clinicIk !== payload.clinicIk) return rejected(404, 'not-found', 'no such Task for this clinic');
      await this.repository.lockIdentifier(tx, found.requestIdentifier);
      const task = (await this.repository.findTaskView(tx, payload.taskId))!;
      // An automatic answer computed for an older version of the request is out of date.
      if (payload.answersVersion !== undefined && payload.answersVersion < task.sentVersion) {
        return rejected(409, 'conflict', 'the answer refers to an older version of the request');
      }
      const decision = answerTask(task.request, task, payload.businessStatus);
      if (decision.kind === 'reject') return rejected(409, 'conflict', decision.diagnostics);

      const now = this.now();
      const notes = payload.note ? [...task.notes, { text: payload.note, time: now.toISOString() }] : task.notes;
      await this.repository.recordAnswer(tx, task.id, { status: decision.status, businessStatus: payload.businessStatus, notes, now });
      const fhirTask = toFhirTask({ ...task, status: decision.status, businessStatus: payload.businessStatus, notes, lastModified: now }, this.systems);
      await this.repository.addToOutbox(tx, [
        outboxRecord(
          AdmissionResponseV1,
          { eventId: randomUUID(), referrerPartyId: task.referrerPartyId, requestIdentifier: task.requestIdentifier, task: { ...fhirTask } },
          { correlationId: meta.correlationId },
        ),
      ]);
      return verdict(200, 'accepted', [], { requestIdentifier: task.requestIdentifier, task: { ...fhirTask } });
    });
  }

  /** Runs `work` once per message id; a redelivery returns the verdict stored the first time. */
  private once(meta: MessageMeta, work: (tx: Tx) => Promise<IntakeVerdictV1>): Promise<IntakeVerdictV1> {
    return this.repository.transaction(async (tx) => {
      const claim = await this.repository.claimMessage(tx, meta.messageId, meta.messageType);
      if (!claim.first) return claim.verdict ?? verdict(202, 'unchanged');
      const result = await work(tx);
      await this.repository.recordVerdict(tx, meta.messageId, result);
      return result;
    });
  }
}
