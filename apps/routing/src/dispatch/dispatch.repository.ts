import type { OutboxRecord } from '@bedrequest/messaging';
import type { Prisma } from '../generated/prisma/client';
import type { RoutingDatabase } from '../persistence/database';
import type { RegisteredClinic } from './dispatch-rules';

export type Tx = Prisma.TransactionClient;

/** One line of the notification log (table clinic_notification). */
export interface NotificationEntry {
  messageId: string;
  taskId: string;
  clinicIk: string;
  requestIdentifier: string;
  requestVersion: number;
  change: string;
  action: string;
  departmentCode?: string;
  admissionDate?: string;
  outcome: string;
  answer?: string;
  note?: string;
}

export interface StoredNotification extends NotificationEntry {
  createdAt: Date;
}

/** Routing's SQL about dispatches: inbox, per-request lock, Task versions, notification log, outbox. */
export class DispatchRepository {
  constructor(private readonly prisma: RoutingDatabase) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    // Waits for row locks of concurrent holds on the same bed count are short; 15 s is ample.
    return this.prisma.$transaction(work, { timeout: 15_000, maxWait: 10_000 });
  }

  /** Records the message as processed; false when it was processed before (a redelivery). */
  async claimMessage(tx: Tx, messageId: string, messageType: string): Promise<boolean> {
    const { count } = await tx.inboxMessage.createMany({ data: [{ messageId, messageType }], skipDuplicates: true });
    return count === 1;
  }

  /** Serialises the dispatches of one request until the transaction ends (several consumers, prefetch). */
  async lockRequest(tx: Tx, requestIdentifier: string): Promise<void> {
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext(${`routing-request:${requestIdentifier}`}))`;
  }

  /**
   * Notes `version` as the Task's latest; false when a newer version was applied already (the
   * dispatches of one request may be consumed out of order).
   */
  async advanceTask(tx: Tx, task: { taskId: string; clinicIk: string; requestIdentifier: string; version: number }): Promise<boolean> {
    const current = await tx.routedTask.findUnique({ where: { taskId: task.taskId }, select: { version: true } });
    if (current && current.version > task.version) return false;
    await tx.routedTask.upsert({
      where: { taskId: task.taskId },
      create: { taskId: task.taskId, clinicIk: task.clinicIk, requestIdentifier: task.requestIdentifier, version: task.version },
      update: { version: task.version, updatedAt: new Date() },
    });
    return true;
  }

  async findClinic(tx: Tx, ik: string): Promise<RegisteredClinic | undefined> {
    const row = await tx.clinic.findUnique({ where: { ik }, select: { ik: true, departments: true, autoAnswer: true } });
    return row ? { ik: row.ik, departments: row.departments, automaticAnswers: row.autoAnswer } : undefined;
  }

  async recordNotifications(tx: Tx, entries: readonly NotificationEntry[]): Promise<void> {
    await tx.clinicNotification.createMany({
      data: entries.map(({ admissionDate, ...entry }) => ({ ...entry, admissionDate: admissionDate ? new Date(`${admissionDate}T00:00:00Z`) : null })),
    });
  }

  async addToOutbox(tx: Tx, records: readonly OutboxRecord[]): Promise<void> {
    if (records.length === 0) return;
    await tx.outboxMessage.createMany({
      data: records.map((record) => ({ routingKey: record.routingKey, envelope: record.envelope as unknown as Prisma.InputJsonValue })),
    });
  }

  /** The clinic's notification log, newest first. */
  async notificationsOf(clinicIk: string, limit: number): Promise<StoredNotification[]> {
    const rows = await this.prisma.clinicNotification.findMany({ where: { clinicIk }, orderBy: { id: 'desc' }, take: limit });
    return rows.map((row) => ({
      messageId: row.messageId,
      taskId: row.taskId,
      clinicIk: row.clinicIk,
      requestIdentifier: row.requestIdentifier,
      requestVersion: row.requestVersion,
      change: row.change,
      action: row.action,
      ...(row.departmentCode ? { departmentCode: row.departmentCode } : {}),
      ...(row.admissionDate ? { admissionDate: row.admissionDate.toISOString().slice(0, 10) } : {}),
      outcome: row.outcome,
      ...(row.answer ? { answer: row.answer } : {}),
      ...(row.note ? { note: row.note } : {}),
      createdAt: row.createdAt,
    }));
  }
}
