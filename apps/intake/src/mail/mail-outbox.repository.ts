import { intakeTable, type IntakeDatabase } from '../persistence';
import type { MailKind } from './mail-text';

/** A mail to send, as its row says (migration 0013_mail_outbox). */
export interface DueMail {
  id: string;
  kind: MailKind;
  taskId: string;
  occasion: string;
  clinicIk: string | null;
  referrerPartyId: string | null;
  attempts: number;
  createdAt: Date;
  /** For a clinic asked: whether this is the first time its Task is sent (the first such row of the Task), not a supplement. */
  newToClinic: boolean;
  /** For a reminder: whether its Task still waits for its clinic with the deadline it reminds of. */
  stillDue: boolean;
}

/** What became of a claimed mail: done with an outcome, or tried again at `retryAt`. */
export type MailResult = { outcome: 'sent' | 'no-recipients' | 'obsolete' | 'given-up' } | { retryAt: Date };

interface DueRow {
  id: string;
  kind: MailKind;
  task_id: string;
  occasion: string;
  clinic_ik: string | null;
  referrer_party_id: string | null;
  attempts: number;
  created_at: Date;
  new_to_clinic: boolean;
  still_due: boolean;
}

/** A deadline as the occasion of its reminder: the instant as JavaScript's toISOString writes it (UTC, milliseconds). */
const ISO_INSTANT = `YYYY-MM-DD"T"HH24:MI:SS.MS"Z"`;

/** Done mail is kept this long (what was sent when, for the operator), then deleted. */
const KEEP_DONE_DAYS = 30;

/**
 * intake's mail outbox: the rows the trigger on outbox_message writes for an event (clinic asked,
 * answer, overdue) and the reminders this repository adds, each once by its unique key.
 */
export class MailOutboxRepository {
  private readonly mail;
  private readonly task;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
  ) {
    this.mail = intakeTable(schema, 'mail_outbox');
    this.task = intakeTable(schema, 'clinic_task');
  }

  /**
   * A reminder for every Task still waiting for its clinic whose deadline is less than `beforeMs`
   * away, once per Task and deadline (a moved deadline is reminded of again). Not for a Task asked
   * for within that window already: its clinic was just told.
   */
  async addReminders(now: Date, beforeMs: number): Promise<number> {
    const until = new Date(now.getTime() + beforeMs);
    return this.prisma.$executeRaw`
      INSERT INTO ${this.mail} (kind, task_id, occasion, clinic_ik)
      SELECT 'reminder', t.id, to_char(t.answer_deadline AT TIME ZONE 'UTC', ${ISO_INSTANT}), t.clinic_ik
        FROM ${this.task} t
       WHERE t.status = 'requested' AND t.overdue_at IS NULL AND t.answer_deadline IS NOT NULL
         AND t.answer_deadline > ${now} AND t.answer_deadline <= ${until}
         AND t.authored_on < t.answer_deadline - make_interval(secs => ${beforeMs / 1000}::float8)
      ON CONFLICT ON CONSTRAINT mail_outbox_once_key DO NOTHING`;
  }

  /**
   * Claims the next due mail (FOR UPDATE SKIP LOCKED: another replica's sender skips it while this
   * one holds it), hands it to `work` and records what became of it, all in one transaction: a mail
   * is done only once its sending was committed. Resolves false when nothing is due.
   */
  async withNextDue(now: Date, work: (mail: DueMail) => Promise<MailResult>, options: { timeoutMs: number }): Promise<boolean> {
    return this.prisma.$transaction(
      async (tx) => {
        const [row] = await tx.$queryRaw<DueRow[]>`
          SELECT m.id::text, m.kind, m.task_id::text, m.occasion, m.clinic_ik, m.referrer_party_id, m.attempts, m.created_at,
                 (t.status = 'requested' AND t.overdue_at IS NULL
                  AND to_char(t.answer_deadline AT TIME ZONE 'UTC', ${ISO_INSTANT}) = m.occasion) IS TRUE AS still_due,
                 NOT EXISTS (SELECT 1 FROM ${this.mail} e WHERE e.kind = 'answer-requested' AND e.task_id = m.task_id AND e.id < m.id) AS new_to_clinic
            FROM ${this.mail} m LEFT JOIN ${this.task} t ON t.id = m.task_id
           WHERE m.done_at IS NULL AND m.next_attempt_at <= ${now}
           ORDER BY m.next_attempt_at
           LIMIT 1
             FOR UPDATE OF m SKIP LOCKED`;
        if (!row) return false;
        const result = await work({
          id: row.id,
          kind: row.kind,
          taskId: row.task_id,
          occasion: row.occasion,
          clinicIk: row.clinic_ik,
          referrerPartyId: row.referrer_party_id,
          attempts: row.attempts,
          createdAt: row.created_at,
          stillDue: row.still_due,
          newToClinic: row.new_to_clinic,
        });
        if ('retryAt' in result) {
          await tx.$executeRaw`UPDATE ${this.mail} SET attempts = attempts + 1, next_attempt_at = ${result.retryAt} WHERE id = ${row.id}::bigint`;
        } else {
          await tx.$executeRaw`
            UPDATE ${this.mail} SET attempts = attempts + 1, done_at = ${new Date()}, outcome = ${result.outcome} WHERE id = ${row.id}::bigint`;
        }
        return true;
      },
      { timeout: options.timeoutMs, maxWait: options.timeoutMs },
    );
  }

  /** Deletes the mail done more than KEEP_DONE_DAYS ago, and what waited that long with mail off. */
  prune(now: Date): Promise<number> {
    const before = new Date(now.getTime() - KEEP_DONE_DAYS * 24 * 3600_000);
    return this.prisma.$executeRaw`DELETE FROM ${this.mail} WHERE created_at < ${before}`;
  }
}
