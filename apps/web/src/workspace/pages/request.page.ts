import { businessStatusOf, type ClinicRecord, type FhirTask } from '@bedrequest/contracts';
import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { layout, notice, type PageContext } from '../../inbox/pages/layout';
import { requestNumberOf } from '../../inbox/request-number';
import { applies, askedByRuleOf, canAskMoreClinics, ikOf, overdueSinceOf, versionOf, type Placement } from '../placements';
import { moreClinicsTexts } from '../more-clinics.texts.de';
import type { WorkspaceTexts } from '../workspace.texts.de';
import { changesTexts } from '../changes.texts.de';
import { documentsTexts } from '../documents.texts.de';
import { newRequestTexts } from '../new-request.texts.de';
import { selectTexts } from '../select.texts.de';
import { deadlineMark, hospitalStatusText, liveStatus } from './requests.page';

/**
 * One request of the hospital (docs/workspace.md, "Eine Anfrage"): every clinic it went to, with the
 * Anfrage-Nr. the clinic quotes on the phone, the state of its answer, and its messages (what a
 * query or a request for more data asks), newest first.
 */
export function requestPage(
  context: PageContext,
  texts: WorkspaceTexts,
  placement: Placement,
  clinics: ReadonlyMap<string, ClinicRecord>,
  formats: Formats,
  flash?: string,
  history?: Html,
): Html {
  const t = texts.hospital.request;
  const sent = formats.instant(placement.sentAt) ?? placement.sentAt;
  const parts = requestParts(texts, placement, clinics, formats);
  return layout(context, {
    title: `${t.title} vom ${sent}`,
    section: 'requests',
    body: html`<div id="live-page" data-updates="/workspace/requests/${placement.id}/updates" data-changed-at="${versionOf([placement])}" data-login="/workspace/login">
<p class="page-actions"><a href="/workspace/requests">← ${t.back}</a></p>
<h1 id="request-title">${t.title} vom ${sent}</h1>
${flash ? notice('success', flash) : ''}
${liveStatus(texts)}
${parts['request-asks']}
<section aria-labelledby="clinics-heading">
<h2 id="clinics-heading">${t.clinics}</h2>
<p class="hint">${t.clinicsIntro}</p>
${parts['request-clinics']}
</section>
<section aria-labelledby="actions-heading">
<h2 id="actions-heading">${texts.hospital.erase.actionsHeading}</h2>
<ul class="plain actions">${actionsOf(placement, texts).map(([path, label]) => html`<li><a href="/workspace/requests/${placement.id}/${path}">${label}</a></li>`)}</ul>
</section>
${history ?? ''}
</div>`,
  });
}

/** The further steps the request's state allows, each a page of its own below the request's address. */
function actionsOf(placement: Placement, texts: WorkspaceTexts): [string, string][] {
  const open = applies('revoke', placement);
  const steps: [string, string, boolean][] = [
    ['withdraw', changesTexts.withdraw.action, applies('withdraw', placement)],
    ['supplement', newRequestTexts.supplement.action, open],
    ['more-clinics', moreClinicsTexts.action, canAskMoreClinics(placement)],
    ['documents', documentsTexts.action, open],
    ['revoke', changesTexts.revoke.action, open],
    ['erase', texts.hospital.erase.action, true],
  ];
  return steps.filter(([, , offered]) => offered).map(([path, label]) => [path, label]);
}

/**
 * The parts of a request's page that change with the clinics' answers, by their element ids: the
 * page's script puts them in place when they change (docs/workspace.md, "Eine Anfrage").
 */
export function requestParts(
  texts: WorkspaceTexts,
  placement: Placement,
  clinics: ReadonlyMap<string, ClinicRecord>,
  formats: Formats,
): Record<'request-asks' | 'request-clinics', Html> {
  const t = texts.hospital.request;
  const asking = placement.tasks.filter((task) => task.status === 'on-hold' && task.note?.length);
  // A clinic that accepted can be selected while none is (docs/workspace.md, "Klinik auswählen").
  const selectable = !placement.tasks.some((task) => task.status === 'in-progress');
  return {
    'request-asks': html`<div id="request-asks" data-live-part>${asking.map((task) =>
      notice(
        'info',
        html`<p><strong>${clinicName(task, clinics, texts)}</strong> – ${businessStatusOf(task) === 'query' ? t.asks.query : t.asks['more-data-required']} ${task.note?.at(-1)?.text ?? ''}</p>`,
      ),
    )}${morePrompt(placement, clinics, texts)}</div>`,
    'request-clinics': html`<table class="clinics" id="request-clinics" data-live-part>
<thead><tr><th scope="col">${t.clinic}</th><th scope="col">${t.number}</th><th scope="col">${t.state}</th><th scope="col">${t.answeredAt}</th><th scope="col">${t.notes}</th></tr></thead>
<tbody>${placement.tasks.map((task) => clinicRow(task, clinics, texts, formats, selectable && task.status === 'accepted' ? `/workspace/requests/${placement.id}/select/${task.id}` : undefined))}</tbody>
</table>`,
  };
}

/** A clinic's row; `select`: where selecting it begins, for a clinic that accepted while none is selected. */
function clinicRow(task: FhirTask, clinics: ReadonlyMap<string, ClinicRecord>, texts: WorkspaceTexts, formats: Formats, select?: string): Html {
  const notes = [...(task.note ?? [])].reverse();
  const action = select ? html` <a class="select-clinic" href="${select}">${selectTexts.action(clinicName(task, clinics, texts))}</a>` : '';
  const byRule = askedByRuleOf(task);
  const ruleMark = byRule ? html`<br><span class="meta asked-by-rule">${texts.hospital.request.askedByRule[byRule]}</span>` : '';
  return html`<tr data-task-id="${task.id}" data-status="${task.status}"${byRule ? html` data-asked-by-rule="${byRule}"` : ''}><th scope="row">${clinicName(task, clinics, texts)}${ruleMark}</th><td class="request-number"><strong>${requestNumberOf(task.id)}</strong></td><td><span class="status status-${task.status}">${hospitalStatusText(task, texts)}</span>${deadlineMark(task, texts, formats)}${action}</td><td><time datetime="${task.lastModified}">${formats.instant(task.lastModified) ?? task.lastModified}</time></td><td>${
    notes.length
      ? html`<ol class="plain notes">${notes.map((note) => html`<li><span class="meta">${formats.instant(note.time) ?? note.time}:</span> ${note.text}</li>`)}</ol>`
      : html`<span class="meta">${texts.hospital.request.noNotes}</span>`
  }</td></tr>`;
}

/** After a decline or a deadline passed, the way on: asking further clinics (docs/workspace.md, "Weitere Kliniken anfragen"). */
function morePrompt(placement: Placement, clinics: ReadonlyMap<string, ClinicRecord>, texts: WorkspaceTexts): Html {
  if (!canAskMoreClinics(placement)) return html``;
  const lines = placement.tasks.flatMap((task) => {
    if (overdueSinceOf(task)) return [moreClinicsTexts.prompt(clinicName(task, clinics, texts), 'overdue')];
    return task.status === 'rejected' ? [moreClinicsTexts.prompt(clinicName(task, clinics, texts), 'declined')] : [];
  });
  if (!lines.length) return html``;
  return notice('info', html`<p>${lines.join(' ')} <a href="/workspace/requests/${placement.id}/more-clinics">${moreClinicsTexts.action}</a></p>`);
}

function clinicName(task: FhirTask, clinics: ReadonlyMap<string, ClinicRecord>, texts: WorkspaceTexts): string {
  const ik = ikOf(task);
  return texts.clinicOf(clinics.get(ik)?.name, ik);
}
