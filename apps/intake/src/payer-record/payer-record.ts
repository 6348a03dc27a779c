import type { AskedByRule, StoredHistoryEntry } from '../tasks';

/** What happened, one kind per row of the CSV and line of the PDF (docs/api.md, "The record for the payer"). */
export type RecordEventKind =
  'request-sent' | 'supplement' | 'asked' | 'version-sent' | 'answer' | 'documents' | 'deadline' | 'overdue' | 'selected' | 'cancelled' | 'ready-for-transfer';

export interface RecordEvent {
  /** UTC ISO 8601 with milliseconds, as the Task history has it. */
  at: string;
  event: RecordEventKind;
  /** The clinic's IK, for what concerns one clinic. */
  clinic?: string;
  version?: number;
  /** An answer's business status code (docs/api.md, "Tasks"). */
  code?: string;
  /** Who: `user:<id>` of the hospital (with the name where kept), `rule:list|registry`, `clinic:<IK>` for an answer (the clinic's people are not shown to the hospital), `service`. */
  by?: string;
  note?: string;
  /** The answer deadline a `deadline` or `overdue` row names. */
  deadline?: string;
}

/** Whose stay the record is about, from the latest version (docs/data-protection.md, "The record for the payer"). */
export interface RecordPatient {
  name?: string;
  birthDate?: string;
  insuranceNumber?: string;
}

export interface PayerRecord {
  /** The request's identifier (ServiceRequest identifier URI). */
  request: string;
  referrerIk: string;
  patient: RecordPatient;
  /** When the record was made, UTC ISO 8601. */
  madeAt: string;
  events: RecordEvent[];
}

/** What the record is made of, as intake stores it (payer-record.repository.ts). */
export interface RecordSources {
  /** `submitterName`: the sender's display name at the time, as the audit trail recorded it with the version. */
  versions: { version: number; receivedAt: Date; submittedBy: string | null; submitterName?: string }[];
  tasks: {
    clinicIk: string;
    history: StoredHistoryEntry[];
    notes: { text: string }[];
    askedByRule: AskedByRule | null;
    answerDeadline: Date | null;
  }[];
  readyForTransfer?: { readyAt: Date; user: string; name?: string };
}

/**
 * The record's events, oldest first (ties in a stable order: by kind as listed in sources, then
 * clinic): every version sent (the first is the request), per Task every dispatch of the Task
 * history (the first asks the clinic, later ones send a supplement, `selected`, `cancelled`), every
 * answer with its code, author and note, every delivery of documents, every overdue mark, the
 * Task's current answer deadline, and when the hospital declared the patient ready for transfer.
 * Every time is the stored one, so that the record equals the Task history the API shows.
 */
export function recordEventsOf(sources: RecordSources): RecordEvent[] {
  const submitter = new Map(sources.versions.map((version) => [version.version, byUser(version.submittedBy, version.submitterName)]));
  const events: RecordEvent[] = sources.versions.map((version) => ({
    at: version.receivedAt.toISOString(),
    event: version.version === 1 ? 'request-sent' : 'supplement',
    version: version.version,
    ...submitter.get(version.version),
  }));
  for (const task of sources.tasks) {
    let asked = false;
    for (const entry of task.history) events.push(eventOf(entry));
    if (task.answerDeadline) {
      events.push({ at: task.answerDeadline.toISOString(), event: 'deadline', clinic: task.clinicIk, deadline: task.answerDeadline.toISOString() });
    }
    function eventOf(entry: StoredHistoryEntry): RecordEvent {
      const clinic = task.clinicIk;
      switch (entry.kind) {
        case 'request': {
          if (entry.action !== 'answer-requested') return { at: entry.at, event: entry.action, clinic, ...version(entry.version) };
          const first = !asked;
          asked = true;
          const by =
            first && task.askedByRule
              ? { by: `rule:${task.askedByRule.source}` }
              : ((entry.version === undefined ? undefined : submitter.get(entry.version)) ?? {});
          return { at: entry.at, event: first ? 'asked' : 'version-sent', clinic, ...version(entry.version), ...by };
        }
        case 'answer': {
          const note = entry.note === undefined ? undefined : task.notes[entry.note]?.text;
          // The hospital is not shown the clinic's people (access-policy.ts, showsAuthors): the clinic answered.
          const by = entry.author.source === 'automatic' ? `clinic:${clinic} (automatic)` : `clinic:${clinic}`;
          return { at: entry.at, event: 'answer', clinic, code: entry.businessStatus, by, ...(note === undefined ? {} : { note }) };
        }
        case 'documents':
          return { at: entry.at, event: 'documents', clinic, note: `${entry.count}` };
        case 'overdue':
          return { at: entry.at, event: 'overdue', clinic, by: 'service', deadline: entry.deadline };
      }
    }
  }
  if (sources.readyForTransfer) {
    const { readyAt, user, name } = sources.readyForTransfer;
    events.push({ at: readyAt.toISOString(), event: 'ready-for-transfer', ...byUser(user, name) });
  }
  // A stable sort: events of one instant keep the order they were listed in.
  return events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** A person of the hospital: `user:<id>`, with their display name where it was kept. */
function byUser(user: string | null, name?: string): { by?: string } {
  return user ? { by: `user:${user}${name ? ` (${name})` : ''}` } : {};
}

function version(value: number | undefined): { version?: number } {
  return value === undefined ? {} : { version: value };
}

/** Whose stay: the Patient of a stored bundle, its first name, birth date and statutory insurance number (KVNR). */
export function patientOf(bundle: unknown): RecordPatient {
  const entries = (bundle as { entry?: { resource?: Record<string, unknown> }[] } | null)?.entry ?? [];
  const patient = entries.map((entry) => entry.resource).find((resource) => resource?.resourceType === 'Patient');
  if (!patient) return {};
  const [name] = (patient.name as { family?: string; given?: string[]; text?: string }[] | undefined) ?? [];
  const shown = name?.text ?? [...(name?.given ?? []), name?.family].filter(Boolean).join(' ');
  const identifiers = (patient.identifier as { system?: string; value?: string }[] | undefined) ?? [];
  const kvnr = identifiers.find((identifier) => identifier.system === KVNR_SYSTEM)?.value;
  const birthDate = typeof patient.birthDate === 'string' ? patient.birthDate : undefined;
  return { ...(shown ? { name: shown } : {}), ...(birthDate ? { birthDate } : {}), ...(kvnr ? { insuranceNumber: kvnr } : {}) };
}

/** The statutory insurance number (Krankenversichertennummer, 10 characters), as the bundles carry it. */
const KVNR_SYSTEM = 'http://fhir.de/sid/gkv/kvid-10';
