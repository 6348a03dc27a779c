import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { BusinessStatus } from '@bedrequest/contracts';

// The rules file of the sandbox's demo clinics (docs/sandbox.md, "The rules file"): which clinics
// there are, and how each answers the Tasks waiting for it. Plain JSON, checked field by field.

/** A department key (Fachabteilungsschlüssel) as the clinic registry takes it. */
const Department = z.string().regex(/^\d{4}$/, 'a department key of four digits, e.g. "2300"');

export const ClinicRule = z.strictObject({
  /** What the waiting Task must be for the rule to answer it; every field given must hold (none: every Task). */
  when: z
    .strictObject({
      /** The request's department (resolved from its performerType). */
      department: Department.optional(),
      /** The desired admission date at least this many days after today (Europe/Berlin); a request without a date never matches. */
      minDaysAhead: z.int().min(0).max(365).optional(),
      /** `first`: the clinic has not answered the Task yet; `again`: it has, and a supplement or documents reopened it. */
      asked: z.enum(['first', 'again']).optional(),
    })
    .default({}),
  answer: z.strictObject({
    businessStatus: BusinessStatus,
    note: z.string().trim().min(1).max(4000).optional(),
    /** Seconds to wait, from when the Task began to wait (its lastModified then), or after the deadline with afterDeadline. */
    afterSeconds: z.number().min(0).max(86_400).default(0),
    /** Wait for the Task's answer deadline (restriction.period.end) to pass first; a Task without one is not answered by this rule. */
    afterDeadline: z.boolean().default(false),
  }),
});
export type ClinicRule = z.infer<typeof ClinicRule>;

export const SandboxClinic = z.strictObject({
  ik: z.string().regex(/^\d{9}$/, 'an IK number of nine digits'),
  name: z.string().trim().min(1).max(200),
  /** What the rules do, in a sentence: printed when the sandbox starts. */
  about: z.string().trim().min(1).max(300).optional(),
  departments: z.array(Department).min(1),
  /** The clinic's user, whom the sandbox logs in as; its password is `<username>-password`. */
  username: z.string().regex(/^[a-z0-9._@+-]{1,119}$/, 'lower-case letters, digits and . _ @ + - (at most 119)'),
  /** In order: the first rule whose `when` holds answers; none holding leaves the Task to a person (the inbox). */
  rules: z.array(ClinicRule),
});
export type SandboxClinic = z.infer<typeof SandboxClinic>;

const RulesFile = z.strictObject({ clinics: z.array(SandboxClinic).min(1) }).superRefine(({ clinics }, context) => {
  const seen = { ik: new Set<string>(), username: new Set<string>() };
  clinics.forEach((clinic, index) => {
    for (const field of ['ik', 'username'] as const) {
      if (seen[field].has(clinic[field])) {
        context.addIssue({ code: 'custom', path: ['clinics', index, field], message: `another clinic has ${field} ${clinic[field]}` });
      }
      seen[field].add(clinic[field]);
    }
    clinic.rules.forEach((rule, ruleIndex) => {
      const department = rule.when.department;
      if (department !== undefined && !clinic.departments.includes(department)) {
        // The service declines a department the clinic does not offer before any rule could answer.
        context.addIssue({
          code: 'custom',
          path: ['clinics', index, 'rules', ruleIndex, 'when', 'department'],
          message: `${department} is not one of the clinic's departments (${clinic.departments.join(', ')})`,
        });
      }
    });
  });
});

/** The demo clinics of the rules file, or the one line that says what is wrong with it and where. */
export type RulesReading = { readonly clinics: SandboxClinic[] } | { readonly problem: string };

/** Reads and checks the rules file; a problem names the clinic (its username, else its position) and the field. */
export async function readRules(file: string): Promise<RulesReading> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { problem: `cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  const parsed = RulesFile.safeParse(json);
  if (parsed.success) return { clinics: parsed.data.clinics };
  const issue = parsed.error.issues[0]!;
  return { problem: `${whereIn(json, issue.path)}: ${issue.message}` };
}

/** `clinic "sandbox-query" rules[1].answer.businessStatus` for the path ["clinics", 1, "rules", 1, "answer", "businessStatus"]. */
function whereIn(json: unknown, path: readonly PropertyKey[]): string {
  const [top, index, ...rest] = path;
  if (top !== 'clinics' || typeof index !== 'number') return path.length > 0 ? path.map(String).join('.') : 'the file';
  const clinic = (json as { clinics: unknown[] }).clinics[index] as { username?: unknown } | undefined;
  const name = typeof clinic?.username === 'string' ? `clinic "${clinic.username}"` : `clinic ${index + 1}`;
  const field = rest.map((part, position) => (typeof part === 'number' ? `[${part}]` : `${position > 0 ? '.' : ''}${String(part)}`)).join('');
  return field ? `${name} ${field}` : name;
}
