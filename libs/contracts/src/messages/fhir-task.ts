import { z } from 'zod';
import { BusinessStatus, TaskStatus } from '../codes';

const Instant = z.iso.datetime({ offset: true });
const IdentifierReference = z.looseObject({ identifier: z.looseObject({ system: z.string(), value: z.string() }) });

/**
 * Who of the clinic wrote a note (docs/api.md, "Tasks"): a person by user id and display name, or for
 * an automatic answer the clinic by its IK.
 */
const NoteAuthorReference = z
  .looseObject({
    type: z
      .enum(['Practitioner', 'Organization'])
      .describe('`Practitioner`: a person of the clinic; `Organization`: the clinic itself, for an automatic answer'),
    identifier: z
      .looseObject({ system: z.string(), value: z.string() })
      .describe(
        "A person: system `{profile_base}/fhir/sid/user`, value their user id (the AuditEvent's `agent.altId`); the clinic: system `http://fhir.de/sid/arge-ik/iknr`, value its IK",
      ),
    display: z.string().optional().describe("The person's display name when they answered; absent for the clinic and for a person without one"),
  })
  .describe(
    "Who of the clinic wrote the note: only in the clinic's own Task (read or searched with a token of the clinic it is addressed to, and its answer's 200), never in the referrer's Task or its webhooks; absent for a note stored before release 1.1",
  );

const Note = z.looseObject({ text: z.string(), time: Instant });

/** An extension of the Task: `answer-overdue` with `valueDateTime`, `asked-by-rule` with `valueCode` (docs/api.md, "Answer deadlines"). */
const Extension = z.looseObject({ url: z.string() });

const taskElements = {
  resourceType: z.literal('Task'),
  id: z.guid(),
  meta: z.looseObject({ lastUpdated: Instant }),
  /** `{profile_base}/fhir/StructureDefinition/asked-by-rule` when the referrer's rule asked the clinic, then `…/answer-overdue` once the service marked the Task overdue; absent when neither. */
  extension: z.array(Extension).optional(),
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
  note: z.array(Note).optional(),
  /** The request's answer deadline as `period.end` (an instant); absent for a request without one. */
  restriction: z.looseObject({ period: z.looseObject({ end: Instant }) }).optional(),
};

/**
 * The FHIR Task of one (request, clinic) pair as intake writes it (docs/decisions.md, "Tasks") and the
 * messages carry it: the answer a clinic gave, for the referrer's webhook and routing's beds.
 *
 * Every object is loose: a consumer keeps what a newer intake adds (the notifier forwards the Task
 * as it came), and the keys are declared in the order intake writes them, so parsing a Task gives
 * back the same JSON text.
 */
export const FhirTask = z.looseObject({ ...taskElements, note: z.array(Note.extend({ authorReference: NoteAuthorReference.optional() })).optional() });
export type FhirTask = z.infer<typeof FhirTask>;
/** Who wrote a note, in the clinic's own view of its Task (docs/api.md, "Tasks"). */
export type NoteAuthorReference = z.infer<typeof NoteAuthorReference>;

/** The clinic's answer on a Task: its one businessStatus coding (docs/decisions.md, "Tasks"). */
export function businessStatusOf(task: FhirTask): BusinessStatus | undefined {
  return task.businessStatus?.coding[0]?.code;
}
