import { businessStatusOf, type ClinicRecord, type FhirTask } from '@bedrequest/contracts';
import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { layout, notice, type PageContext } from '../../inbox/pages/layout';
import { requestNumberOf } from '../../inbox/request-number';
import { ikOf, PLACEMENT_STATES, stateOf, type Placement, type PlacementState } from '../placements';
import type { WorkspaceTexts } from '../workspace.texts.de';

export interface RequestsView {
  /** Every request read, of all states: the filter's tabs count them. */
  placements: readonly Placement[];
  filter: PlacementState | 'all';
  clinics: ReadonlyMap<string, ClinicRecord>;
  /** More Tasks matched than the page read: the oldest requests are not shown. */
  truncated: boolean;
  formats: Formats;
}

/** The hospital's requests (docs/workspace.md, "Anfragen"): each with every clinic's state of it. */
export function requestsPage(context: PageContext, texts: WorkspaceTexts, view: RequestsView, flash?: string): Html {
  const t = texts.hospital.list;
  const changedAt = view.placements[0]?.changedAt ?? '';
  const query = view.filter === 'all' ? '' : `?filter=${view.filter}`;
  return layout(context, {
    title: t.title,
    section: 'requests',
    body: html`<div id="live-page" data-updates="/workspace/requests/updates${query}" data-changed-at="${changedAt}" data-login="/workspace/login">
<h1>${t.title}</h1>
<p>${t.intro}</p>
${flash ? notice('success', flash) : ''}
${liveStatus(texts)}
${view.truncated ? notice('info', t.truncated(view.placements.length)) : ''}
${requestsParts(texts, view)['requests-table']}
</div>`,
  });
}

/** The list's part that changes with the clinics' answers (see requestParts): the filter's tabs with their counts, and the table. */
export function requestsParts(texts: WorkspaceTexts, view: RequestsView): Record<'requests-table', Html> {
  const t = texts.hospital.list;
  const { formats } = view;
  const states = view.placements.map((placement) => ({ placement, state: stateOf(placement) }));
  const shown = states.filter(({ state }) => view.filter === 'all' || state === view.filter).map(({ placement }) => placement);
  const countOf = (filter: PlacementState | 'all') => (filter === 'all' ? states.length : states.filter(({ state }) => state === filter).length);
  const tabs = html`<nav aria-label="${t.filters}" class="filters"><ul>${(['all', ...PLACEMENT_STATES] as const).map(
    (filter) =>
      html`<li><a href="/workspace/requests${filter === 'all' ? '' : `?filter=${filter}`}"${filter === view.filter ? html` aria-current="page"` : ''}>${t.filter[filter]} <span class="count" data-count="${filter}">${countOf(filter)}</span></a></li>`,
  )}</ul></nav>`;
  const rows = shown.map((placement) => {
    const sent = formats.instant(placement.sentAt) ?? placement.sentAt;
    return html`<tr data-request="${placement.id}" data-state="${stateOf(placement)}"><th scope="row"><a href="/workspace/requests/${placement.id}">${t.requestOf(sent)}</a></th><td><ul class="plain">${placement.tasks.map((task) => html`<li>${clinicLine(task, view.clinics, texts)}</li>`)}</ul></td><td><time datetime="${placement.changedAt}">${formats.instant(placement.changedAt) ?? placement.changedAt}</time></td></tr>`;
  });
  const table = rows.length
    ? html`<table class="requests"><caption class="visually-hidden">${t.caption}</caption>
<thead><tr><th scope="col">${t.columns.request}</th><th scope="col">${t.columns.clinics}</th><th scope="col">${t.columns.changed}</th></tr></thead>
<tbody>${rows}</tbody></table>`
    : html`<p class="empty">${states.length ? t.emptyFilter : t.empty}</p>`;
  return { 'requests-table': html`<div id="requests-table" data-live-part>${tabs}${table}</div>` };
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
