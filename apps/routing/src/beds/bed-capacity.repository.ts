import type { Prisma } from '../generated/prisma/client';
import type { RoutingDatabase } from '../persistence/database';
import { routingTable } from '../persistence/sql';
import type { BedCount, BedKey } from './bed-count';

interface BedCountRow {
  clinic_ik: string;
  department_code: string;
  admission_date: string;
  free_beds: number;
  held: number;
  reserved: number;
}

/**
 * The SQL of the bed-count API: clinics publish and read their counts. The bookings against them
 * (holds, reservations, releases) are made by the dispatch batches under the counts' row locks
 * (dispatch/dispatch.repository.ts).
 */
export class BedCapacityRepository {
  private readonly capacity: Prisma.Sql;

  constructor(
    private readonly prisma: RoutingDatabase,
    private readonly schema: string,
  ) {
    this.capacity = routingTable(schema, 'bed_capacity');
  }

  /** Sets the clinic's published count; beds already held or reserved stay booked. */
  async publish(key: BedKey, freeBeds: number): Promise<BedCount> {
    const rows = await this.prisma.$queryRaw<BedCountRow[]>`
      INSERT INTO ${this.capacity} AS c (clinic_ik, department_code, admission_date, free_beds)
      VALUES (${key.clinicIk}, ${key.departmentCode}, ${key.admissionDate}::date, ${freeBeds})
      ON CONFLICT (clinic_ik, department_code, admission_date)
        DO UPDATE SET free_beds = EXCLUDED.free_beds, updated_at = now()
      RETURNING c.clinic_ik, c.department_code, to_char(c.admission_date, 'YYYY-MM-DD') AS admission_date, c.free_beds, c.held, c.reserved`;
    const [row] = rows;
    if (!row) throw new Error('INSERT ... RETURNING returned no row');
    return toBedCount(row);
  }

  /**
   * The counts of one admission date, optionally of one department, of every clinic that shows its
   * free beds to referrers (GET /api/v1/kliniken/free-beds), for departments the clinic still offers;
   * by clinic and department. One query, found by the date's index.
   */
  async shownToReferrers(date: string, department?: string): Promise<BedCount[]> {
    const clinic = routingTable(this.schema, 'clinic');
    const rows = await this.prisma.$queryRaw<BedCountRow[]>`
      SELECT b.clinic_ik, b.department_code, to_char(b.admission_date, 'YYYY-MM-DD') AS admission_date, b.free_beds, b.held, b.reserved
        FROM ${this.capacity} b
        JOIN ${clinic} c ON c.ik = b.clinic_ik
       WHERE b.admission_date = ${date}::date
         AND (${department ?? null}::text IS NULL OR b.department_code = ${department ?? null}::text)
         AND c.shown_to_referrers
         AND b.department_code = ANY (c.departments)
       ORDER BY b.clinic_ik, b.department_code`;
    return rows.map(toBedCount);
  }

  /** A clinic's counts by date and department, optionally from / up to a date (inclusive). */
  async list(clinicIk: string, range: { from?: string; to?: string } = {}): Promise<BedCount[]> {
    const rows = await this.prisma.$queryRaw<BedCountRow[]>`
      SELECT clinic_ik, department_code, to_char(admission_date, 'YYYY-MM-DD') AS admission_date, free_beds, held, reserved
        FROM ${this.capacity}
       WHERE clinic_ik = ${clinicIk}
         AND (${range.from ?? null}::date IS NULL OR admission_date >= ${range.from ?? null}::date)
         AND (${range.to ?? null}::date IS NULL OR admission_date <= ${range.to ?? null}::date)
       ORDER BY admission_date, department_code`;
    return rows.map(toBedCount);
  }
}

function toBedCount(row: BedCountRow): BedCount {
  return {
    clinicIk: row.clinic_ik,
    departmentCode: row.department_code,
    admissionDate: row.admission_date,
    freeBeds: row.free_beds,
    held: row.held,
    reserved: row.reserved,
  };
}
