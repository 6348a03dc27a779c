import { z } from 'zod';
import { BusinessStatus, TaskStatus } from '../codes';

const Instant = z.iso.datetime({ offset: true });
const IdentifierReference = z.looseObject({ identifier: z.looseObject({ system: z.string(), value: z.string() }) });

/**
 * The FHIR Task of one (request, clinic) pair as intake writes it (docs/decisions.md, "Tasks") and the
 * messages carry it: the answer a clinic gave, for the referrer's webhook and routing's beds.
 *
 * Every object is loose: a consumer keeps what a newer intake adds (the notifier forwards the Task
 * as it came), and the keys are declared in the order intake writes them, so parsing a Task gives
 * back the same JSON text.
 */
export const FhirTask = z.looseObject({
  resourceType: z.literal('Task'),
  id: z.guid(),
  meta: z.looseObject({ lastUpdated: Instant }),
  status: TaskStatus,
  intent: z.literal('order'),
  /** The ServiceRequest identifier (`urn:ietf:rfc:3986`). */
  basedOn: z.array(IdentifierReference).min(1),
  /** The clinic's IK. */
  owner: IdentifierReference,
  /** The referrer's IK. */
  requester: IdentifierReference,
  authoredOn: Instant,
  lastModified: Instant,
  /** The clinic's latest answer; absent until there is one. */
  businessStatus: z.looseObject({ coding: z.array(z.looseObject({ system: z.string(), code: BusinessStatus, display: z.string() })).min(1) }).optional(),
  /** The answers' notes, oldest first; absent when there are none. */
  note: z.array(z.looseObject({ text: z.string(), time: Instant })).optional(),
});
export type FhirTask = z.infer<typeof FhirTask>;

/** The clinic's answer on a Task: its one businessStatus coding (docs/decisions.md, "Tasks"). */
export function businessStatusOf(task: FhirTask): BusinessStatus | undefined {
  return task.businessStatus?.coding[0]?.code;
}
