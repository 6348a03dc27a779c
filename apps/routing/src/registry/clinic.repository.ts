import type { OutboxRecord } from '@bedrequest/messaging';
import type { Prisma } from '../generated/prisma/client';
import type { RoutingDatabase } from '../persistence/database';

/** A clinic as stored: its IK number, name, the department keys it offers, and whether routing answers for it. */
export interface ClinicRecord {
  readonly ik: string;
  readonly name: string;
  readonly departments: readonly string[];
  readonly automaticAnswers: boolean;
}

const columns = { ik: true, name: true, departments: true, autoAnswer: true } as const;

export class ClinicRepository {
  constructor(private readonly prisma: RoutingDatabase) {}

  async list(): Promise<ClinicRecord[]> {
    const rows = await this.prisma.clinic.findMany({ orderBy: { ik: 'asc' }, select: columns });
    return rows.map(toRecord);
  }

  async find(ik: string): Promise<ClinicRecord | undefined> {
    const row = await this.prisma.clinic.findUnique({ where: { ik }, select: columns });
    return row ? toRecord(row) : undefined;
  }

  /**
   * Inserts or replaces name and departments (automatic answers stay as they were) and, in the same
   * transaction, puts `announcement` into the outbox (the registry's change broadcast); tells
   * whether the clinic was new.
   */
  async upsert(
    clinic: { ik: string; name: string; departments: readonly string[] },
    announcement: OutboxRecord,
  ): Promise<{ record: ClinicRecord; created: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.clinic.findUnique({ where: { ik: clinic.ik }, select: { ik: true } });
      const data = { name: clinic.name, departments: [...clinic.departments] };
      const row = await tx.clinic.upsert({ where: { ik: clinic.ik }, create: { ik: clinic.ik, ...data }, update: data, select: columns });
      await tx.outboxMessage.create({
        data: {
          routingKey: announcement.routingKey,
          envelope: announcement.envelope as unknown as Prisma.InputJsonValue,
          ...(announcement.traceContext ? { traceContext: { ...announcement.traceContext } } : {}),
        },
      });
      return { record: toRecord(row), created: !existing };
    });
  }

  /** Undefined when there is no clinic with this IK. */
  async setAutomaticAnswers(ik: string, enabled: boolean): Promise<ClinicRecord | undefined> {
    const { count } = await this.prisma.clinic.updateMany({ where: { ik }, data: { autoAnswer: enabled } });
    return count === 1 ? this.find(ik) : undefined;
  }

  /** Whether the clinic shows its free beds to referrers; undefined when there is no clinic with this IK. */
  async freeBedsShown(ik: string): Promise<boolean | undefined> {
    const row = await this.prisma.clinic.findUnique({ where: { ik }, select: { shownToReferrers: true } });
    return row?.shownToReferrers;
  }

  /** Undefined when there is no clinic with this IK. */
  async showFreeBeds(ik: string, shown: boolean): Promise<boolean | undefined> {
    const { count } = await this.prisma.clinic.updateMany({ where: { ik }, data: { shownToReferrers: shown } });
    return count === 1 ? shown : undefined;
  }
}

function toRecord(row: { ik: string; name: string; departments: string[]; autoAnswer: boolean }): ClinicRecord {
  return { ik: row.ik, name: row.name, departments: row.departments, automaticAnswers: row.autoAnswer };
}
