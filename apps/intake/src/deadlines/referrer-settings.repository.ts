import { HolidayRegion, type ReferrerSettings } from '@bedrequest/contracts';
import { intakeTable, type IntakeDatabase } from '../persistence';
import type { AnswerDeadlineRule } from './working-days';

interface SettingsRow {
  referrer_party_id: string;
  answer_deadline_working_days: number;
  answer_deadline_holidays: string;
}

/**
 * A referrer party's settings (docs/api.md, "Answer deadlines"): its default answer deadline. A party
 * without a row has the service's default (ANSWER_DEADLINE_WORKING_DAYS, ANSWER_DEADLINE_HOLIDAYS).
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
    const rows = unique.length
      ? await this.prisma.$queryRaw<SettingsRow[]>`
          SELECT referrer_party_id, answer_deadline_working_days, answer_deadline_holidays FROM ${this.table}
           WHERE referrer_party_id = ANY(${unique}::text[])`
      : [];
    const rules = new Map(unique.map((partyId) => [partyId, this.serviceDefault]));
    for (const row of rows) rules.set(row.referrer_party_id, ruleOf(row, this.serviceDefault));
    return rules;
  }

  async read(partyId: string): Promise<ReferrerSettings> {
    const rule = (await this.rulesOf([partyId])).get(partyId) ?? this.serviceDefault;
    return { answerDeadline: rule };
  }

  async write(partyId: string, settings: ReferrerSettings, now: Date): Promise<ReferrerSettings> {
    const { workingDays, holidays } = settings.answerDeadline;
    await this.prisma.$executeRaw`
      INSERT INTO ${this.table} (referrer_party_id, answer_deadline_working_days, answer_deadline_holidays, updated_at)
      VALUES (${partyId}, ${workingDays}, ${holidays}, ${now})
      ON CONFLICT (referrer_party_id) DO UPDATE
         SET answer_deadline_working_days = EXCLUDED.answer_deadline_working_days,
             answer_deadline_holidays = EXCLUDED.answer_deadline_holidays, updated_at = EXCLUDED.updated_at`;
    return { answerDeadline: { workingDays, holidays } };
  }
}

function ruleOf(row: SettingsRow, fallback: AnswerDeadlineRule): AnswerDeadlineRule {
  const holidays = HolidayRegion.safeParse(row.answer_deadline_holidays);
  return { workingDays: row.answer_deadline_working_days, holidays: holidays.success ? holidays.data : fallback.holidays };
}
