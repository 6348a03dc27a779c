import type { Prisma } from '../generated/prisma/client';
import type { RoutingDatabase } from '../persistence/database';
import { routingTable } from '../persistence/sql';
import type { BedCount, BedKey, BedState, HeldBed } from './bed-count';

/** Prisma's client or a transaction of it. */
export type Db = RoutingDatabase | Prisma.TransactionClient;

export type HoldResult = 'held' | 'no-free-bed' | 'no-bed-count';

interface BedCountRow {
  clinic_ik: string;
  department_code: string;
  admission_date: string;
  free_beds: number;
  held: number;
  reserved: number;
}

/**
 * All SQL about bed counts and the beds Tasks hold. Holding is one conditional UPDATE: under
 * PostgreSQL's row lock a concurrent transaction waits, then re-checks the condition against the
 * committed row, so the last free bed goes to exactly one request and none is double-booked.
 */
export class BedCapacityRepository {
  private readonly capacity: Prisma.Sql;
  private readonly holds: Prisma.Sql;

  constructor(
    private readonly prisma: RoutingDatabase,
    schema: string,
  ) {
    this.capacity = routingTable(schema, 'bed_capacity');
    this.holds = routingTable(schema, 'bed_hold');
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

  async findHold(db: Db, taskId: string): Promise<HeldBed | undefined> {
    const rows = await db.$queryRaw<{ task_id: string; clinic_ik: string; department_code: string; admission_date: string; state: BedState }[]>`
      SELECT task_id::text, clinic_ik, department_code, to_char(admission_date, 'YYYY-MM-DD') AS admission_date, state
        FROM ${this.holds} WHERE task_id = ${taskId}::uuid`;
    const row = rows[0];
    return row && { taskId: row.task_id, clinicIk: row.clinic_ik, departmentCode: row.department_code, admissionDate: row.admission_date, state: row.state };
  }

  /** Holds one bed for the Task if one is available (`free_beds - held - reserved > 0`). */
  async hold(db: Db, key: BedKey, task: { taskId: string; requestIdentifier: string }): Promise<HoldResult> {
    const taken = await db.$executeRaw`
      UPDATE ${this.capacity} SET held = held + 1, updated_at = now()
       WHERE clinic_ik = ${key.clinicIk} AND department_code = ${key.departmentCode} AND admission_date = ${key.admissionDate}::date
         AND free_beds - held - reserved > 0`;
    if (taken === 1) {
      await db.$executeRaw`
        INSERT INTO ${this.holds} (task_id, request_identifier, clinic_ik, department_code, admission_date, state)
        VALUES (${task.taskId}::uuid, ${task.requestIdentifier}, ${key.clinicIk}, ${key.departmentCode}, ${key.admissionDate}::date, 'held')`;
      return 'held';
    }
    const exists = await db.$queryRaw<unknown[]>`
      SELECT 1 FROM ${this.capacity}
       WHERE clinic_ik = ${key.clinicIk} AND department_code = ${key.departmentCode} AND admission_date = ${key.admissionDate}::date`;
    return exists.length > 0 ? 'no-free-bed' : 'no-bed-count';
  }

  /** The Task's held bed becomes reserved (selection); false when it held none. */
  async reserve(db: Db, taskId: string): Promise<boolean> {
    const moved = await db.$executeRaw`
      WITH reserved AS (
        UPDATE ${this.holds} SET state = 'reserved', updated_at = now()
         WHERE task_id = ${taskId}::uuid AND state = 'held'
        RETURNING clinic_ik, department_code, admission_date
      )
      UPDATE ${this.capacity} AS c SET held = c.held - 1, reserved = c.reserved + 1, updated_at = now()
        FROM reserved r
       WHERE c.clinic_ik = r.clinic_ik AND c.department_code = r.department_code AND c.admission_date = r.admission_date`;
    return moved === 1;
  }

  /** Gives back the bed the Task holds or has reserved; false when it had none. */
  async release(db: Db, taskId: string): Promise<boolean> {
    const released = await db.$executeRaw`
      WITH released AS (
        DELETE FROM ${this.holds} WHERE task_id = ${taskId}::uuid
        RETURNING clinic_ik, department_code, admission_date, state
      )
      UPDATE ${this.capacity} AS c
         SET held = c.held - (r.state = 'held')::int, reserved = c.reserved - (r.state = 'reserved')::int, updated_at = now()
        FROM released r
       WHERE c.clinic_ik = r.clinic_ik AND c.department_code = r.department_code AND c.admission_date = r.admission_date`;
    return released === 1;
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
