import type { AutomaticDeclineReason } from '@bedrequest/contracts';
import { DEPARTMENTS } from './departments';

/**
 * The service's answers on a clinic's behalf (docs/decisions.md, "Clinics answer": a requested clinic
 * that does not offer the resolved department is declined automatically; docs/parties.md, "Clinics
 * and routing": answers from published bed counts). Intake applies the decline rule when a request
 * reaches a clinic; routing answers from bed counts. Both word their notes here.
 */

/** Why the service declines for a clinic at once, whatever the clinic's own settings: what request.dispatched.v1 tells routing. */
export type DeclineReason = AutomaticDeclineReason;

/** The decline rule: undefined when the clinic takes part and offers the department. */
export function declineReason(clinic: { readonly departments: readonly string[] } | undefined, departmentCode: string | undefined): DeclineReason | undefined {
  if (!clinic) return 'not-participating';
  if (departmentCode && !clinic.departments.includes(departmentCode)) return 'department-not-offered';
  return undefined;
}

/** The specialties' German names, as the clinics' staff and the referrers' social services call them. */
export const SPECIALTY_NAMES: Readonly<Record<string, string>> = {
  addiction: 'Suchtbehandlung',
  angiology: 'Angiologie',
  cardiology: 'Kardiologie',
  dermatology: 'Dermatologie',
  endocrinology: 'Endokrinologie',
  gastroenterology: 'Gastroenterologie',
  geriatrics: 'Geriatrie',
  gynaecology: 'Gynäkologie',
  'internal-medicine': 'Innere Medizin',
  nephrology: 'Nephrologie',
  'neuro-pediatrics': 'Neuropädiatrie',
  'neuro-phase-b': 'Neurologie Phase B',
  'neuro-phase-c': 'Neurologie Phase C',
  'neuro-phase-d': 'Neurologie Phase D',
  neurology: 'Neurologie',
  oncology: 'Onkologie',
  orthopedics: 'Orthopädie',
  'parents-and-child-rehab': 'Eltern-Kind-Rehabilitation',
  pediatrics: 'Pädiatrie',
  pneumology: 'Pneumologie',
  psychosomatic: 'Psychosomatik/Psychotherapie',
  rheumatology: 'Rheumatologie',
  urology: 'Urologie',
};

/**
 * "Orthopädie (2300)": the German name of the specialty asked for, or of the one the department key
 * is listed under in the registry when the request gave the key alone, with the key.
 */
export function departmentLabel(request: { readonly departmentCode?: string | undefined; readonly specialty?: string | undefined }): string {
  const code = request.departmentCode ?? 'unbekannt';
  const specialty = request.specialty ?? DEPARTMENTS.get(code)?.code;
  const name = specialty ? (SPECIALTY_NAMES[specialty] ?? DEPARTMENTS.get(code)?.display) : undefined;
  return name ? `${name} (${code})` : code;
}

/** The clinic an automatic answer is given for: its name from the registry, its IK when the name is not known. */
export interface AnsweringClinic {
  readonly ik: string;
  readonly name?: string | undefined;
}

const clinicName = (clinic: AnsweringClinic) => clinic.name?.trim() || `Klinik mit IK ${clinic.ik}`;

/** 2026-12-10 as 10.12.2026. */
const germanDate = (date: string) => (/^\d{4}-\d{2}-\d{2}$/.test(date) ? date.split('-').reverse().join('.') : date);

/**
 * The notes of automatic answers (docs/parties.md, "Automatic answers from bed counts"), in German
 * like the referrers' and clinics' own notes (the people reading them work in German hospitals):
 * the clinic's name first, as a clinic's own answer would begin, then the answer, the department
 * and the admission date, and that the service gave it. Never patient data.
 */
export const automaticAnswerNotes = {
  notParticipating: (ik: string) => `Automatische Antwort: Die Klinik ${ik} ist keine teilnehmende Klinik.`,
  departmentNotOffered: (clinic: AnsweringClinic, department: string) =>
    `${clinicName(clinic)}: Absage für ${department} – automatisch, die Klinik bietet diese Fachabteilung nicht an.`,
  noFreeBed: (clinic: AnsweringClinic, department: string, date: string) =>
    `${clinicName(clinic)}: Absage für ${department} zum ${germanDate(date)} – automatisch aus den veröffentlichten Bettenzahlen, kein Bett frei.`,
  bedHeld: (clinic: AnsweringClinic, department: string, date: string) =>
    `${clinicName(clinic)}: Zusage für ${department} zum ${germanDate(date)} – automatisch aus den veröffentlichten Bettenzahlen.`,
};

/** The note of a decline for `reason`. */
export function declineNote(reason: DeclineReason, clinic: AnsweringClinic, request: Parameters<typeof departmentLabel>[0]): string {
  return reason === 'not-participating'
    ? automaticAnswerNotes.notParticipating(clinic.ik)
    : automaticAnswerNotes.departmentNotOffered(clinic, departmentLabel(request));
}
