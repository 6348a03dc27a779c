import type { ClinicRecord } from '@bedrequest/contracts';
import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import type { WorkspaceTexts } from '../workspace.texts.de';

/** A change of the request as the audit trail records it (HospitalApi.changes). */
export interface RequestChange {
  at: string;
  action: string;
  ik?: string;
  name?: string;
}

/**
 * The request's history (docs/workspace.md, "Eine Anfrage"), newest first: who of the hospital sent
 * or changed it, by name, and which clinic answered, from the audit trail, which names the party's
 * own people to the party alone.
 */
export function historySection(
  changes: readonly RequestChange[],
  hospitalIks: readonly string[],
  clinics: ReadonlyMap<string, ClinicRecord>,
  texts: WorkspaceTexts,
  formats: Formats,
): Html {
  const t = texts.hospital.history;
  const line = (change: RequestChange) => {
    const byClinic = change.ik !== undefined && !hospitalIks.includes(change.ik);
    const what = change.action === 'C' ? t.sent : change.action === 'D' ? t.erased : byClinic ? t.answered : t.changed;
    const who = byClinic ? texts.clinicOf(clinics.get(change.ik ?? '')?.name, change.ik ?? '') : change.name;
    return html`<li><span class="meta">${formats.instant(change.at) ?? change.at}:</span> ${what}${who ? html` ${t.by(who)}` : ''}</li>`;
  };
  return html`<section aria-labelledby="history-heading">
<h2 id="history-heading">${t.heading}</h2>
${changes.length ? html`<ol class="plain history" id="request-history">${[...changes].reverse().map(line)}</ol>` : html`<p class="empty">${t.empty}</p>`}
</section>`;
}
