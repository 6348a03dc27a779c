import type { OutboxRecord } from '@bedrequest/messaging';
import type { Prisma } from '../generated/prisma/client';
import type { RoutingDatabase } from '../persistence/database';

/** Where a clinic is (`clinic upsert`): its postal code and its point in WGS 84 degrees, each optional. */
export interface ClinicLocation {
  readonly postalCode?: string;
  readonly coordinates?: { readonly latitude: number; readonly longitude: number };
}

/** A clinic as stored: its IK number, name, the department keys it offers, whether routing answers for it, and where it is. */
export interface ClinicRecord extends ClinicLocation {
  readonly ik: string;
  readonly name: string;
  readonly departments: readonly string[];
  readonly automaticAnswers: boolean;
}

const columns = { ik: true, name: true, departments: true, autoAnswer: true, postalCode: true, latitude: true, longitude: true } as const;

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
   * Inserts or replaces name and departments, and the postal code and coordinates given (those not
   * given and automatic answers stay as they were) and, in the same
   * transaction, puts its announcement of the stored clinic into the outbox (the registry's change
   * broadcast); tells whether the clinic was new.
   */
  async upsert(
    clinic: { ik: string; name: string; departments: readonly string[] } & ClinicLocation,
    announce: (stored: ClinicRecord) => OutboxRecord,
  ): Promise<{ record: ClinicRecord; created: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.clinic.findUnique({ where: { ik: clinic.ik }, select: { ik: true } });
      const data = {
        name: clinic.name,
        departments: [...clinic.departments],
        ...(clinic.postalCode === undefined ? {} : { postalCode: clinic.postalCode }),
        ...(clinic.coordinates === undefined ? {} : { latitude: clinic.coordinates.latitude, longitude: clinic.coordinates.longitude }),
      };
      const row = await tx.clinic.upsert({ where: { ik: clinic.ik }, create: { ik: clinic.ik, ...data }, update: data, select: columns });
      const announcement = announce(toRecord(row));
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

function toRecord(row: {
  ik: string;
  name: string;
  departments: string[];
  autoAnswer: boolean;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
}): ClinicRecord {
  return {
    ik: row.ik,
    name: row.name,
    departments: row.departments,
    automaticAnswers: row.autoAnswer,
    ...(row.postalCode === null ? {} : { postalCode: row.postalCode }),
    ...(row.latitude === null || row.longitude === null ? {} : { coordinates: { latitude: row.latitude, longitude: row.longitude } }),
  };
}
