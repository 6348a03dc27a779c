import type { AnswerStatisticRow } from '../answer-statistics';
import type { BusinessStatus, IntakeVerdictV1, ServiceRequestIntent, ServiceRequestStatus, TaskStatus } from '@bedrequest/contracts';
import type { OutboxRecord } from '@bedrequest/messaging';
import type { AuditEntry } from '../audit';
import type { AskedByRule, StoredHistoryEntry, TaskNote } from '../tasks';

// What intake stores of a request, as a batch reads it (AdmissionRequestRepository.load) and what
// a batch writes (AdmissionRequestRepository.write).

export interface StoredRequest {
  id: string;
  identifier: string;
  referrerPartyId: string;
  referrerIk: string;
  status: ServiceRequestStatus;
  intent: ServiceRequestIntent;
  selectedClinicIk: string | null;
  currentVersion: number;
  latestHash: string;
  createdAt: Date;
  updatedAt: Date;
  /** Its patient data was erased (RequestErasureRepository): only the tombstone is left, and nothing is accepted for it. */
  erased?: true;
  /** How many documents it holds, and the bytes of its versions and documents (request-limits.ts). */
  documentCount: number;
  storedBytes: number;
  /** By when the referrer needs the clinics' answers (docs/api.md, "Answer deadlines"); none for a request stored before them. */
  answerDeadline?: Date | null;
  /**
   * The fingerprint of the latest version without its clinics and envelope (bundle-fingerprint.ts):
   * a version that only adds clinics leaves the others' Tasks as they are. None before migration 0011.
   */
  latestContentHash?: string | null;
  /** What the party's rule saw when it last looked (deadlines/escalation-sweep.ts): a batch that read another value lost a race with it. */
  escalationSeenChanges?: number | null;
}

export interface StoredTask {
  id: string;
  requestId: string;
  clinicIk: string;
  status: TaskStatus;
  businessStatus: BusinessStatus | null;
  notes: TaskNote[];
  sentVersion: number;
  authoredOn: Date;
  lastModified: Date;
  cancelledAt: Date | null;
  /** Counts every change of the Task (its optimistic version). */
  revision: number;
  /** Its answers, deliveries of documents and request changes, oldest first (tasks/task-history.ts); none when absent. */
  history?: StoredHistoryEntry[];
  /** When documents reopened it after `more-data-required` (document-submission.ts); null (or absent) once answered. */
  documentsSuppliedAt?: Date | null;
  /** Its request's answer deadline (restriction.period.end). */
  answerDeadline?: Date | null;
  /** When the overdue sweep marked it (deadlines/overdue-sweep.ts); null once answered or the deadline moved ahead. */
  overdueSince?: Date | null;
  /** The deadline the last AdmissionOverdueV1 of the Task was published for. */
  overdueDeadline?: Date | null;
  /** The party's rule that asked its clinic (deadlines/escalation.ts); none when a version named it. */
  askedByRule?: AskedByRule | null;
  /** The department its request asks for, as of the latest version sent (migration 0015); none before it. */
  departmentCode?: string | null;
}

/** What a batch changes, written by AdmissionRequestRepository.write in one statement. */
export interface BatchChanges {
  inbox: { messageId: string; messageType: string; verdict: IntakeVerdictV1 }[];
  createdRequests: StoredRequest[];
  /** With the version the batch read: each is written only if it is still that version. */
  changedRequests: (StoredRequest & { expectedVersion: number })[];
  /** `sentTo`: the clinics the version is sent to (and may then read). */
  /** `submittedBy`: the person who sent it (request-audit.ts, `senderOf`). */
  versions: {
    requestId: string;
    version: number;
    bundle: unknown;
    canonicalHash: string;
    messageId: string;
    receivedAt: Date;
    sentTo: string[];
    submittedBy: string;
  }[];
  /** Every Task created or changed, in its final state, with its request's referrer; a changed one's revision is one above the one read. */
  tasks: (StoredTask & { referrerPartyId: string })[];
  /** The first answers by their clinics (answer-statistics/answer-statistic.ts), for the statistics. */
  answerStatistics?: AnswerStatisticRow[];
  /** `expectedVersion`: the request's version as read, or null for a request this batch created. */
  documents: {
    id: string;
    requestId: string;
    bundle: unknown;
    canonicalHash: string;
    messageId: string;
    receivedAt: Date;
    expectedVersion: number | null;
    submittedBy: string;
  }[];
  /** In the order the messages were caused. */
  outbox: OutboxRecord[];
  /** The audit trail's entries of the changes, in the order they were made. */
  audit: AuditEntry[];
}

/** How a stored document is recognised: its request and the fingerprint of its bundle. */
export interface StoredDocumentHash {
  requestId: string;
  hash: string;
}
