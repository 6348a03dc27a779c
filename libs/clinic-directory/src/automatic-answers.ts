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

/**
 * "2300 (orthopedics)": the department key with the specialty asked for, or the one it is listed
 * under in the registry when the request gave the department key alone.
 */
export function departmentLabel(request: { readonly departmentCode?: string | undefined; readonly specialty?: string | undefined }): string {
  const code = request.departmentCode ?? 'unbekannt';
  const specialty = request.specialty ?? DEPARTMENTS.get(code)?.code;
  return specialty ? `${code} (${specialty})` : code;
}

/**
 * The notes of automatic answers, in German like the referrers' and clinics' own notes (the people
 * reading them work in German hospitals). Each names the clinic and the codes it is about, never
 * patient data.
 */
export const automaticAnswerNotes = {
  notParticipating: (ik: string) => `Automatische Antwort: Die Klinik ${ik} ist keine teilnehmende Klinik.`,
  departmentNotOffered: (ik: string, department: string) => `Automatische Antwort: Die Klinik ${ik} bietet die Fachabteilung ${department} nicht an.`,
  noFreeBed: (ik: string, department: string, date: string) =>
    `Automatische Antwort: Die Klinik ${ik} hat in der Fachabteilung ${department} am ${date} kein freies Bett.`,
  bedHeld: (ik: string, department: string, date: string) =>
    `Automatische Antwort: Die Klinik ${ik} hält in der Fachabteilung ${department} für die Aufnahme am ${date} ein Bett für diese Anfrage frei.`,
};

/** The note of a decline for `reason`. */
export function declineNote(reason: DeclineReason, clinicIk: string, request: Parameters<typeof departmentLabel>[0]): string {
  return reason === 'not-participating'
    ? automaticAnswerNotes.notParticipating(clinicIk)
    : automaticAnswerNotes.departmentNotOffered(clinicIk, departmentLabel(request));
}
