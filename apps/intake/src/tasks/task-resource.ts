import type { BusinessStatus, FhirTask, NoteAuthorReference, TaskStatus } from '@bedrequest/contracts';
import { ADMISSION_RESPONSE_STATUSES, IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM, type FhirSystems } from '@bedrequest/fhir-model';

/**
 * Who wrote a note: a person of the clinic (their user id, the access token's `act.sub`, and their
 * display name at the time, where the token named one), or the service answering on the clinic's
 * behalf. A note stored before intake kept its author names none (docs/data-protection.md, "Staff").
 */
export type NoteAuthor = { source: 'clinic'; user: string; name?: string } | { source: 'automatic' };

export interface TaskNote {
  text: string;
  time: string;
  author?: NoteAuthor;
}

/** A clinic_task row with what the FHIR Task needs of its request. */
export interface ClinicTaskView {
  id: string;
  clinicIk: string;
  status: TaskStatus;
  businessStatus: BusinessStatus | null;
  notes: TaskNote[];
  authoredOn: Date;
  lastModified: Date;
  requestIdentifier: string;
  referrerIk: string;
  /** Its request's answer deadline: `restriction.period.end` (docs/api.md, "Answer deadlines"). */
  answerDeadline?: Date | null;
  /** When the service marked it overdue: the answer-overdue extension. */
  overdueSince?: Date | null;
  /** The party's rule asked its clinic (asking by rule), from its list or the registry: the asked-by-rule extension. */
  askedByRule?: AskedByRule | null;
}

/** What a Task keeps of the rule that asked its clinic (clinic_task.asked_by_rule, migration 0012). */
export interface AskedByRule {
  /** `list`: the party's own list; `registry`: the registry's clinics with the department, nearest first. */
  source: 'list' | 'registry';
  whenOpenBelow: number;
  askNext: number;
  /** How many clinics were still open when the rule asked. */
  openBefore: number;
}

/** A stored asked_by_rule value, or null (none, or not one this release wrote). */
export function askedByRuleOf(stored: unknown): AskedByRule | null {
  const value = stored as Partial<AskedByRule> | null | undefined;
  return value && (value.source === 'list' || value.source === 'registry') ? (value as AskedByRule) : null;
}

/**
 * The FHIR Task of docs/decisions.md ("Tasks: the state of each (request, clinic) pair"): what the Task
 * reads answer and what admission.response.v1 carries (the contract `FhirTask`, whose keys are in
 * the order written here). `authors`: whether each note names who wrote it, which only the Task's
 * own clinic is shown (the access policy's `taskAccess.showsAuthors`); the referrer's Task has notes
 * of `text` and `time` alone, as docs/decisions.md writes them.
 */
export function toFhirTask(task: ClinicTaskView, systems: FhirSystems, view: { authors: boolean }): FhirTask {
  const lastModified = task.lastModified.toISOString();
  return {
    resourceType: 'Task',
    id: task.id,
    meta: { lastUpdated: lastModified },
    ...extensionsOf(task, systems),
    status: task.status,
    intent: 'order',
    basedOn: [{ identifier: { system: URI_IDENTIFIER_SYSTEM, value: task.requestIdentifier } }],
    owner: { identifier: { system: IK_NUMBER_SYSTEM, value: task.clinicIk } },
    requester: { identifier: { system: IK_NUMBER_SYSTEM, value: task.referrerIk } },
    authoredOn: task.authoredOn.toISOString(),
    lastModified,
    ...(task.businessStatus
      ? {
          businessStatus: {
            coding: [
              {
                system: systems.admissionResponseStatusSystem,
                code: task.businessStatus,
                display: ADMISSION_RESPONSE_STATUSES[task.businessStatus],
              },
            ],
          },
        }
      : {}),
    ...(task.notes.length ? { note: task.notes.map((note) => annotationOf(note, task.clinicIk, view.authors ? systems : undefined)) } : {}),
    ...(task.answerDeadline ? { restriction: { period: { end: task.answerDeadline.toISOString() } } } : {}),
  };
}

/** The Task's extensions: asked-by-rule (its source as `valueCode`), answer-overdue; none: no `extension`. */
function extensionsOf(task: ClinicTaskView, systems: FhirSystems): { extension?: NonNullable<FhirTask['extension']> } {
  const extension = [
    ...(task.askedByRule ? [{ url: systems.askedByRuleExtension, valueCode: task.askedByRule.source }] : []),
    ...(task.overdueSince ? [{ url: systems.answerOverdueExtension, valueDateTime: task.overdueSince.toISOString() }] : []),
  ];
  return extension.length ? { extension } : {};
}

/** A note as FHIR's Annotation (R4 datatypes.html#Annotation), with its author (`authorReference`) when `systems` is given and the note names one. */
function annotationOf(note: TaskNote, clinicIk: string, systems: FhirSystems | undefined): NonNullable<FhirTask['note']>[number] {
  const author = systems && note.author && authorOf(note.author, clinicIk, systems);
  return { text: note.text, time: note.time, ...(author ? { authorReference: author } : {}) };
}

/**
 * A person of the clinic as a Practitioner by their user id, with their display name. An automatic
 * answer has no person: it names the clinic, on whose behalf the service answered, by its IK (R4's
 * Annotation takes a Practitioner, Patient, RelatedPerson or Organization, no Device).
 */
function authorOf(author: NoteAuthor, clinicIk: string, systems: FhirSystems): NoteAuthorReference {
  if (author.source === 'automatic') return { type: 'Organization', identifier: { system: IK_NUMBER_SYSTEM, value: clinicIk } };
  return { type: 'Practitioner', identifier: { system: systems.userSystem, value: author.user }, ...(author.name ? { display: author.name } : {}) };
}
