import { Prisma } from '../generated/prisma/client';
import { intakeTable, type IntakeDatabase } from '../persistence';

/** One clinic's figures in one department over the window, as the statement computes them. */
export interface ClinicDepartmentFigures {
  clinicIk: string;
  departmentCode: string;
  answers: number;
  accepted: number;
  /** percentile_cont(0.5) and (0.9) of the seconds to answer: linear interpolation between ranks. */
  medianSeconds: number;
  p90Seconds: number;
}

interface FiguresRow {
  clinic_ik: string;
  department_code: string;
  answers: number;
  accepted: number;
  median_seconds: number;
  p90_seconds: number;
}

/**
 * Reads the answer statistics (migration 0015) from answer_statistic_window_idx alone: the window
 * is the index's leading range, the department its second column, and seconds and accepted are
 * included, so the plan is an Index Only Scan and never touches the Tasks (docs/architecture.md,
 * "Answer statistics").
 */
export class AnswerStatisticsRepository {
  private readonly table: Prisma.Sql;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
  ) {
    this.table = intakeTable(schema, 'answer_statistic');
  }

  /** The statement of `figures`, for EXPLAIN in the tests. */
  figuresSql(since: Date, departmentCode?: string): Prisma.Sql {
    const department = departmentCode === undefined ? Prisma.empty : Prisma.sql`AND department_code = ${departmentCode}`;
    return Prisma.sql`
      SELECT clinic_ik, department_code, count(*)::int AS answers, (count(*) FILTER (WHERE accepted))::int AS accepted,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS median_seconds,
             percentile_cont(0.9) WITHIN GROUP (ORDER BY seconds) AS p90_seconds
        FROM ${this.table}
       WHERE answered_at >= ${since} ${department}
       GROUP BY clinic_ik, department_code
       ORDER BY department_code, clinic_ik`;
  }

  /** Every clinic's figures per department for the answers since `since`, of one department if named. */
  async figures(since: Date, departmentCode?: string): Promise<ClinicDepartmentFigures[]> {
    const rows = await this.prisma.$queryRaw<FiguresRow[]>(this.figuresSql(since, departmentCode));
    return rows.map((row) => ({
      clinicIk: row.clinic_ik,
      departmentCode: row.department_code,
      answers: row.answers,
      accepted: row.accepted,
      medianSeconds: Number(row.median_seconds),
      p90Seconds: Number(row.p90_seconds),
    }));
  }
}
