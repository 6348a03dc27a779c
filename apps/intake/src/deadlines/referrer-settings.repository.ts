import { EscalationRule, HolidayRegion, type ReferrerSettings } from '@bedrequest/contracts';
import { intakeTable, type IntakeDatabase } from '../persistence';
import type { AnswerDeadlineRule } from './working-days';

interface SettingsRow {
  referrer_party_id: string;
  answer_deadline_working_days: number;
  answer_deadline_holidays: string;
  escalation: unknown;
}

/**
 * A referrer party's settings (docs/api.md, "Answer deadlines"): its default answer deadline and
 * its rule for asking further clinics. A party without a row has the service's default
 * (ANSWER_DEADLINE_WORKING_DAYS, ANSWER_DEADLINE_HOLIDAYS) and no rule.
 */
export class ReferrerSettingsRepository {
  private readonly table;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
    private readonly serviceDefault: AnswerDeadlineRule,
  ) {
    this.table = intakeTable(schema, 'referrer_settings');
  }

  /** The rules of the given parties, each its own or the service's default: one statement for a batch. */
  async rulesOf(partyIds: readonly string[]): Promise<Map<string, AnswerDeadlineRule>> {
    const unique = [...new Set(partyIds)];
    const rows = unique.length ? await this.rows(unique) : [];
    const rules = new Map(unique.map((partyId) => [partyId, this.serviceDefault]));
    for (const row of rows) rules.set(row.referrer_party_id, ruleOf(row, this.serviceDefault));
    return rules;
  }

  /** The party's default answer deadline, its own or the service's. */
  async ruleOf(partyId: string): Promise<AnswerDeadlineRule> {
    return (await this.rulesOf([partyId])).get(partyId) ?? this.serviceDefault;
  }

  async read(partyId: string): Promise<ReferrerSettings> {
    const [row] = await this.rows([partyId]);
    // Without a rule the answer is as before rules existed: no `escalation`.
    const escalation = row ? escalationOf(row.escalation) : null;
    return { answerDeadline: row ? ruleOf(row, this.serviceDefault) : this.serviceDefault, ...(escalation ? { escalation } : {}) };
  }

  /** Replaces the default deadline, and the rule when `settings` has `escalation` (`null` removes it; absent keeps it): answers what is stored. */
  async write(partyId: string, settings: ReferrerSettings, now: Date): Promise<ReferrerSettings> {
    const { workingDays, holidays } = settings.answerDeadline;
    const given = settings.escalation !== undefined;
    const escalation = settings.escalation ? JSON.stringify(settings.escalation) : null;
    await this.prisma.$executeRaw`
      INSERT INTO ${this.table} (referrer_party_id, answer_deadline_working_days, answer_deadline_holidays, updated_at, escalation, escalation_set_at)
      VALUES (${partyId}, ${workingDays}, ${holidays}, ${now}, ${escalation}::jsonb, ${given ? now : null})
      ON CONFLICT (referrer_party_id) DO UPDATE
         SET answer_deadline_working_days = EXCLUDED.answer_deadline_working_days,
             answer_deadline_holidays = EXCLUDED.answer_deadline_holidays, updated_at = EXCLUDED.updated_at,
             escalation = CASE WHEN ${given} THEN EXCLUDED.escalation ELSE ${this.table}.escalation END,
             escalation_set_at = CASE WHEN ${given} THEN EXCLUDED.escalation_set_at ELSE ${this.table}.escalation_set_at END`;
    return this.read(partyId);
  }

  private rows(partyIds: readonly string[]): Promise<SettingsRow[]> {
    return this.prisma.$queryRaw<SettingsRow[]>`
      SELECT referrer_party_id, answer_deadline_working_days, answer_deadline_holidays, escalation FROM ${this.table}
       WHERE referrer_party_id = ANY(${partyIds}::text[])`;
  }
}

function ruleOf(row: SettingsRow, fallback: AnswerDeadlineRule): AnswerDeadlineRule {
  const holidays = HolidayRegion.safeParse(row.answer_deadline_holidays);
  return { workingDays: row.answer_deadline_working_days, holidays: holidays.success ? holidays.data : fallback.holidays };
}

/** The stored rule, or null (none, or one that no longer parses: it asks nobody). */
export function escalationOf(stored: unknown): EscalationRule | null {
  const parsed = EscalationRule.safeParse(stored);
  return parsed.success ? parsed.data : null;
}
