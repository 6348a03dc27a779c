import { randomUUID } from 'node:crypto';
import type { OutboxRecord } from '@bedrequest/messaging';
import type { IntakeVerdictV1 } from '@bedrequest/contracts';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import type { TaskNote, ClinicTaskView } from '../tasks/task-resource';
import type { BusinessStatus, RequestIntent, RequestState, RequestStatus, TaskChange, TaskStatus } from './request-state-machine';

export type Tx = Prisma.TransactionClient;

export interface StoredRequest extends RequestState {
  id: string;
  identifier: string;
  referrerPartyId: string;
  referrerIk: string;
  currentVersion: number;
  tasks: (RequestState['tasks'][number] & { sentVersion: number })[];
}

/** All of intake's SQL about requests, versions, Tasks, documents, the inbox and the outbox. */
export class AdmissionRequestRepository {
  constructor(private readonly prisma: PrismaClient) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work, { timeout: 15_000, maxWait: 10_000 });
  }

  /**
   * Serialises all work on one request identifier (also its creation, when no row exists yet to
   * lock) until the transaction ends: concurrent bundles for one request never lose an update.
   */
  async lockIdentifier(tx: Tx, identifier: string): Promise<void> {
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext(${`request:${identifier}`}))`;
  }

  /** Records the message as processed; returns the stored verdict when it was processed before. */
  async claimMessage(tx: Tx, messageId: string, messageType: string): Promise<{ first: true } | { first: false; verdict: IntakeVerdictV1 | null }> {
    const { count } = await tx.inboxMessage.createMany({ data: [{ messageId, messageType }], skipDuplicates: true });
    if (count === 1) return { first: true };
    const row = await tx.inboxMessage.findUnique({ where: { messageId } });
    return { first: false, verdict: (row?.verdict as IntakeVerdictV1 | null) ?? null };
  }

  async recordVerdict(tx: Tx, messageId: string, verdict: IntakeVerdictV1): Promise<void> {
    await tx.inboxMessage.update({ where: { messageId }, data: { verdict: verdict as Prisma.InputJsonValue } });
  }

  async findByIdentifier(tx: Tx, identifier: string): Promise<StoredRequest | undefined> {
    const row = await tx.admissionRequest.findUnique({ where: { identifier }, include: { tasks: { orderBy: { authoredOn: 'asc' } } } });
    if (!row) return undefined;
    const latest = await tx.requestVersion.findUnique({
      where: { requestId_version: { requestId: row.id, version: row.currentVersion } },
      select: { canonicalHash: true },
    });
    return {
      id: row.id,
      identifier: row.identifier,
      referrerPartyId: row.referrerPartyId,
      referrerIk: row.referrerIk,
      status: row.status as RequestStatus,
      intent: row.intent as RequestIntent,
      selectedClinicIk: row.selectedClinicIk,
      currentVersion: row.currentVersion,
      latestHash: latest?.canonicalHash ?? '',
      tasks: row.tasks.map((task) => ({
        id: task.id,
        clinicIk: task.clinicIk,
        status: task.status as TaskStatus,
        businessStatus: task.businessStatus as BusinessStatus | null,
        sentVersion: task.sentVersion,
      })),
    };
  }

  /** Stores the request's new state, the new version and the Task changes; returns the Task ids by clinic. */
  async applyChange(
    tx: Tx,
    change: {
      existing: StoredRequest | undefined;
      identifier: string;
      referrerPartyId: string;
      referrerIk: string;
      next: { status: RequestStatus; intent: RequestIntent; selectedClinicIk: string | null };
      version: { bundle: unknown; canonicalHash: string; messageId: string };
      tasks: readonly TaskChange[];
      now: Date;
    },
  ): Promise<{ requestId: string; version: number; taskIds: Map<string, string> }> {
    const { existing, now } = change;
    const requestId = existing?.id ?? randomUUID();
    const version = (existing?.currentVersion ?? 0) + 1;
    const state = { ...change.next, currentVersion: version, updatedAt: now };
    if (existing) await tx.admissionRequest.update({ where: { id: requestId }, data: state });
    else {
      await tx.admissionRequest.create({
        data: { id: requestId, identifier: change.identifier, referrerPartyId: change.referrerPartyId, referrerIk: change.referrerIk, createdAt: now, ...state },
      });
    }
    await tx.requestVersion.create({
      data: {
        requestId,
        version,
        bundle: change.version.bundle as Prisma.InputJsonValue,
        canonicalHash: change.version.canonicalHash,
        messageId: change.version.messageId,
        receivedAt: now,
      },
    });
    const taskIds = new Map<string, string>();
    const created: Prisma.ClinicTaskCreateManyInput[] = [];
    for (const task of change.tasks) {
      const data = {
        status: task.status,
        lastModified: now,
        cancelledAt: task.status === 'cancelled' ? now : null,
        ...(task.clearBusinessStatus ? { businessStatus: null } : {}),
        ...(task.send ? { sentVersion: version } : {}),
      };
      if (task.taskId) {
        await tx.clinicTask.update({ where: { id: task.taskId }, data });
        taskIds.set(task.clinicIk, task.taskId);
      } else {
        const id = randomUUID();
        created.push({ id, requestId, clinicIk: task.clinicIk, authoredOn: now, sentVersion: version, ...data });
        taskIds.set(task.clinicIk, id);
      }
    }
    // New Tasks in one statement: every statement is a round trip inside the transaction.
    if (created.length) await tx.clinicTask.createMany({ data: created });
    return { requestId, version, taskIds };
  }

  async findTaskView(tx: Tx | PrismaClient, taskId: string): Promise<(ClinicTaskView & { sentVersion: number; requestId: string; referrerPartyId: string; request: Pick<StoredRequest, 'status' | 'intent' | 'selectedClinicIk'> }) | undefined> {
    const row = await tx.clinicTask.findUnique({ where: { id: taskId }, include: { request: true } });
    if (!row) return undefined;
    return {
      ...taskViewOf(row, row.request),
      sentVersion: row.sentVersion,
      requestId: row.requestId,
      referrerPartyId: row.request.referrerPartyId,
      request: { status: row.request.status as RequestStatus, intent: row.request.intent as RequestIntent, selectedClinicIk: row.request.selectedClinicIk },
    };
  }

  async recordAnswer(tx: Tx, taskId: string, answer: { status: TaskStatus; businessStatus: BusinessStatus; notes: TaskNote[]; now: Date }): Promise<void> {
    await tx.clinicTask.update({
      where: { id: taskId },
      data: { status: answer.status, businessStatus: answer.businessStatus, notes: answer.notes as unknown as Prisma.InputJsonValue, lastModified: answer.now },
    });
  }

  /** Stores a DocumentBundle; false when the same one (same canonical hash) is already stored. */
  async addDocument(tx: Tx, document: { requestId: string; bundle: unknown; canonicalHash: string; messageId: string; now: Date }): Promise<boolean> {
    const { count } = await tx.requestDocument.createMany({
      data: [
        {
          id: randomUUID(),
          requestId: document.requestId,
          bundle: document.bundle as Prisma.InputJsonValue,
          canonicalHash: document.canonicalHash,
          messageId: document.messageId,
          receivedAt: document.now,
        },
      ],
      skipDuplicates: true,
    });
    return count === 1;
  }

  async addToOutbox(tx: Tx, records: readonly OutboxRecord[]): Promise<void> {
    if (records.length === 0) return;
    await tx.outboxMessage.createMany({
      data: records.map((record) => ({ routingKey: record.routingKey, envelope: record.envelope as unknown as Prisma.InputJsonValue })),
    });
  }
}

export function taskViewOf(
  task: { id: string; clinicIk: string; status: string; businessStatus: string | null; notes: unknown; authoredOn: Date; lastModified: Date },
  request: { identifier: string; referrerIk: string },
): ClinicTaskView {
  return {
    id: task.id,
    clinicIk: task.clinicIk,
    status: task.status as TaskStatus,
    businessStatus: task.businessStatus as BusinessStatus | null,
    notes: (task.notes as TaskNote[]) ?? [],
    authoredOn: task.authoredOn,
    lastModified: task.lastModified,
    requestIdentifier: request.identifier,
    referrerIk: request.referrerIk,
  };
}
