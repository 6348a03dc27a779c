import type { Issue } from '../outcome';
import type { FhirSystems } from '../systems';
import { isFhirDateTime } from './datatypes';
import type { EntryView } from './entries';
import { quoted } from './excerpt';
import { issue } from './issues';
import { arrayField, stringField } from './raw';

/** How far ahead an answer deadline may lie (docs/api.md, "Answer deadlines"). */
export const MAX_ANSWER_DEADLINE_DAYS = 90;

/** A date-time with seconds and an offset: the deadline is a point in time, never a date alone. */
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The answer-deadline extension of the ServiceRequest (docs/api.md, "Answer deadlines"): at most one,
 * its `valueDateTime` a date-time with seconds and an offset, at most MAX_ANSWER_DEADLINE_DAYS after
 * `now`. Whether it lies after the time of receipt depends on the request as stored (a deadline
 * resent unchanged may have passed), so intake checks that.
 */
export function checkAnswerDeadline(serviceRequest: EntryView, systems: FhirSystems, now: Date): Issue[] {
  const at = (...segments: (string | number)[]) => ['entry', serviceRequest.index, 'resource', 'extension', ...segments];
  const extensions = arrayField(serviceRequest.resource, 'extension')
    .map((extension, index) => ({ extension, index }))
    .filter(({ extension }) => stringField(extension, 'url') === systems.answerDeadlineExtension);
  const [first, second] = extensions;
  if (!first) return [];
  if (second) return [issue('invalid', 'at most one answer-deadline extension is allowed', at(second.index))];
  const value = stringField(first.extension, 'valueDateTime');
  const path = at(first.index, 'valueDateTime');
  if (value === undefined) return [issue('required', 'the answer-deadline extension requires valueDateTime', path)];
  if (!DATE_TIME_WITH_OFFSET.test(value) || !isFhirDateTime(value)) {
    return [issue('value', `answer deadline ${quoted(value)} must be a date-time with seconds and a time-zone offset`, path)];
  }
  const latest = now.getTime() + MAX_ANSWER_DEADLINE_DAYS * 86_400_000;
  if (Date.parse(value) > latest) return [issue('value', `answer deadline ${quoted(value)} is more than ${MAX_ANSWER_DEADLINE_DAYS} days ahead`, path)];
  return [];
}

/** The answer deadline of a valid ServiceRequest, if it carries one. */
export function answerDeadlineOf(serviceRequest: unknown, systems: FhirSystems): string | undefined {
  const extension = arrayField(serviceRequest, 'extension').find((candidate) => stringField(candidate, 'url') === systems.answerDeadlineExtension);
  return extension === undefined ? undefined : stringField(extension, 'valueDateTime');
}
