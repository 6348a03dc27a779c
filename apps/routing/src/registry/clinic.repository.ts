import type { RoutingDatabase } from '../persistence/database';

/** A clinic as stored: its IK number, name and the department keys it offers. */
export interface ClinicRecord {
  readonly ik: string;
  readonly name: string;
  readonly departments: readonly string[];
}

export class ClinicRepository {
  constructor(private readonly prisma: RoutingDatabase) {}

  async list(): Promise<ClinicRecord[]> {
    const rows = await this.prisma.clinic.findMany({ orderBy: { ik: 'asc' } });
    return rows.map(toRecord);
  }

  async find(ik: string): Promise<ClinicRecord | undefined> {
    const row = await this.prisma.clinic.findUnique({ where: { ik } });
    return row ? toRecord(row) : undefined;
  }

  /** Inserts or replaces name and departments; tells whether the clinic was new. */
  async upsert(clinic: ClinicRecord): Promise<{ created: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.clinic.findUnique({ where: { ik: clinic.ik }, select: { ik: true } });
      const data = { name: clinic.name, departments: [...clinic.departments] };
      await tx.clinic.upsert({ where: { ik: clinic.ik }, create: { ik: clinic.ik, ...data }, update: data });
      return { created: !existing };
    });
  }
}

function toRecord(row: { ik: string; name: string; departments: string[] }): ClinicRecord {
  return { ik: row.ik, name: row.name, departments: row.departments };
}
