import { businessStatusOf, type ClinicRecord, type FhirTask } from '@bedrequest/contracts';
import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { layout, notice, type PageContext } from '../../inbox/pages/layout';
import { requestNumberOf } from '../../inbox/request-number';
import { ikOf, type Placement } from '../placements';
import type { WorkspaceTexts } from '../workspace.texts.de';

export interface RequestsView {
  placements: readonly Placement[];
  clinics: ReadonlyMap<string, ClinicRecord>;
  /** More Tasks matched than the page read: the oldest requests are not shown. */
  truncated: boolean;
  formats: Formats;
}

/** The hospital's requests (docs/workspace.md, "Anfragen"): each with every clinic's state of it. */
export function requestsPage(context: PageContext, texts: WorkspaceTexts, view: RequestsView): Html {
  const t = texts.hospital.list;
  const changedAt = view.placements[0]?.changedAt ?? '';
  return layout(context, {
    title: t.title,
    section: 'requests',
    body: html`<div id="live-page" data-updates="/workspace/requests/updates" data-changed-at="${changedAt}" data-login="/workspace/login">
<h1>${t.title}</h1>
<p>${t.intro}</p>
${liveStatus(texts)}
${view.truncated ? notice('info', t.truncated(view.placements.length)) : ''}
${requestsParts(texts, view)['requests-table']}
</div>`,
  });
}

/** The list's part that changes with the clinics' answers (see requestParts). */
export function requestsParts(texts: WorkspaceTexts, view: RequestsView): Record<'requests-table', Html> {
  const t = texts.hospital.list;
  const { formats } = view;
  const rows = view.placements.map((placement) => {
    const sent = formats.instant(placement.sentAt) ?? placement.sentAt;
    return html`<tr data-request="${placement.id}"><th scope="row"><a href="/workspace/requests/${placement.id}">${t.requestOf(sent)}</a></th><td><ul class="plain">${placement.tasks.map((task) => html`<li>${clinicLine(task, view.clinics, texts)}</li>`)}</ul></td><td><time datetime="${placement.changedAt}">${formats.instant(placement.changedAt) ?? placement.changedAt}</time></td></tr>`;
  });
  return {
    'requests-table': rows.length
      ? html`<table class="requests" id="requests-table" data-live-part><caption class="visually-hidden">${t.caption}</caption>
<thead><tr><th scope="col">${t.columns.request}</th><th scope="col">${t.columns.clinics}</th><th scope="col">${t.columns.changed}</th></tr></thead>
<tbody>${rows}</tbody></table>`
      : html`<p class="empty" id="requests-table" data-live-part>${t.empty}</p>`,
  };
}

/** A clinic of the request: its name, the state of its Task, and the Anfrage-Nr. it quotes on the phone. */
export function clinicLine(task: FhirTask, clinics: ReadonlyMap<string, ClinicRecord>, texts: WorkspaceTexts): Html {
  const ik = ikOf(task);
  return html`<span class="clinic-name">${texts.clinicOf(clinics.get(ik)?.name, ik)}</span>: <span class="status status-${task.status}">${hospitalStatusText(task, texts)}</span> <span class="meta">(${texts.hospital.request.number} ${requestNumberOf(task.id)})</span>`;
}

/** The state of a clinic's Task in the hospital's words: the answer's kind for a query. */
export function hospitalStatusText(task: FhirTask, texts: WorkspaceTexts): string {
  const status = texts.hospital.status;
  const answer = businessStatusOf(task);
  if (task.status === 'on-hold' && (answer === 'query' || answer === 'more-data-required')) return status.onHold[answer];
  return status[task.status];
}

/** Read out when the page's script puts a change in place. */
export function liveStatus(texts: WorkspaceTexts): Html {
  return html`<p id="live-changes" class="visually-hidden" role="status" aria-live="polite" data-changed="${texts.hospital.changedNotice}"></p>`;
}
