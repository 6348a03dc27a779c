import type { FhirSystems } from '@bedrequest/fhir-model';
import { defaultAnswerDeadline, type AnswerDeadlineRule } from './working-days';

/** What a bundle does to its request's answer deadline (docs/api.md, "Answer deadlines"). */
export type DeadlineDecision = { kind: 'keep' } | { kind: 'set'; deadline: Date } | { kind: 'refuse'; diagnostics: string; expression?: string };

/** The service's default when neither the party nor the environment set one. */
export const SERVICE_DEADLINE_RULE: AnswerDeadlineRule = { workingDays: 2, holidays: 'DE' };

/**
 * A bundle's answer deadline against the request's: given, it must lie after the time of receipt
 * (`now`) on a new request and wherever it differs from the deadline held (a deadline resent
 * unchanged may have passed); absent, a new request gets the party's default and an update keeps
 * what is held. A revocation changes no deadline.
 */
export function decideAnswerDeadline(input: {
  held: Date | null | undefined;
  isNew: boolean;
  given: string | undefined;
  revoked: boolean;
  now: Date;
  rule: () => AnswerDeadlineRule;
}): DeadlineDecision {
  if (input.revoked) return { kind: 'keep' };
  if (input.given === undefined) return input.isNew ? { kind: 'set', deadline: defaultAnswerDeadline(input.now, input.rule()) } : { kind: 'keep' };
  const deadline = new Date(input.given);
  if (!input.isNew && input.held?.getTime() === deadline.getTime()) return { kind: 'keep' };
  if (deadline <= input.now) {
    return { kind: 'refuse', diagnostics: `the answer deadline ${input.given} is not later than the time of receipt (${input.now.toISOString()})` };
  }
  return { kind: 'set', deadline };
}

/** The FHIRPath of the answer deadline's value in the bundle, for the refusal's issue. */
export function answerDeadlineExpression(bundle: unknown, systems: FhirSystems): string | undefined {
  const entries = Array.isArray((bundle as { entry?: unknown })?.entry) ? (bundle as { entry: unknown[] }).entry : [];
  const entryIndex = entries.findIndex((entry) => (entry as { resource?: { resourceType?: unknown } })?.resource?.resourceType === 'ServiceRequest');
  if (entryIndex < 0) return undefined;
  const extensions = (entries[entryIndex] as { resource: { extension?: unknown } }).resource.extension;
  const extensionIndex = Array.isArray(extensions)
    ? extensions.findIndex((extension) => (extension as { url?: unknown })?.url === systems.answerDeadlineExtension)
    : -1;
  return extensionIndex < 0 ? undefined : `Bundle.entry[${entryIndex}].resource.extension[${extensionIndex}].valueDateTime`;
}
