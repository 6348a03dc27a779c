import { businessStatusOf, type ClinicRecord, type FhirTask } from '@bedrequest/contracts';
import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import { requestNumberOf } from '../../inbox/request-number';
import { ownDataTexts } from '../own-data.texts.de';
import { deadlineOf, ikOf, overdueSinceOf, PLACEMENT_STATES, requestOf, stateOf, versionOf, type Placement, type PlacementState } from '../placements';
import type { WorkspaceTexts } from '../workspace.texts.de';

export interface RequestsView {
  /** Every request read, of all states: the filter's tabs count them. */
  placements: readonly Placement[];
  filter: PlacementState | 'all';
  clinics: ReadonlyMap<string, ClinicRecord>;
  /** More Tasks matched than the page read: the oldest requests are not shown. */
  truncated: boolean;
  formats: Formats;
  /** The hospital's internal case numbers of the requests shown, by request identifier. */
  caseNumbers: ReadonlyMap<string, string>;
  /** The requests found by an internal case number, instead of the list. */
  search?: { caseNumber: string };
}

/** The hospital's requests (docs/workspace.md, "Anfragen"): each with every clinic's state of it. */
export function requestsPage(context: PageContext, texts: WorkspaceTexts, view: RequestsView, flash?: { kind: 'success' | 'error'; message: string }): Html {
  const t = texts.hospital.list;
  const changedAt = versionOf(view.placements);
  const query = view.filter === 'all' ? '' : `?filter=${view.filter}`;
  // Search results are not followed live: the list's updates would replace them.
  const live = view.search
    ? html`id="search-results"`
    : html`id="live-page" data-updates="/workspace/requests/updates${query}" data-changed-at="${changedAt}" data-login="/workspace/login"`;
  return layout(context, {
    title: t.title,
    section: 'requests',
    body: html`<div ${live}>
<h1>${t.title}</h1>
<p>${t.intro}</p>
${flash ? notice(flash.kind, flash.message) : ''}
${searchForm(context, view.search)}
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
  const tabs = view.search
    ? shown.length
      ? html`<p role="status">${ownDataTexts.caseNumber.search.results(shown.length, view.search.caseNumber)}</p>`
      : html``
    : html`<nav aria-label="${t.filters}" class="filters"><ul>${(['all', ...PLACEMENT_STATES] as const).map(
        (filter) =>
          html`<li><a href="/workspace/requests${filter === 'all' ? '' : `?filter=${filter}`}"${filter === view.filter ? html` aria-current="page"` : ''}>${t.filter[filter]} <span class="count" data-count="${filter}">${countOf(filter)}</span></a></li>`,
      )}</ul></nav>`;
  const rows = shown.map((placement) => {
    const sent = formats.instant(placement.sentAt) ?? placement.sentAt;
    const caseNumber = view.caseNumbers.get(requestOf(placement.tasks[0] as FhirTask));
    const own = caseNumber ? html`<br><span class="meta case-number">${ownDataTexts.caseNumber.inList} ${caseNumber}</span>` : '';
    return html`<tr data-request="${placement.id}" data-state="${stateOf(placement)}"><th scope="row"><a href="/workspace/requests/${placement.id}">${t.requestOf(sent)}</a>${own}</th><td><ul class="plain">${placement.tasks.map((task) => html`<li>${clinicLine(task, view.clinics, texts, formats)}</li>`)}</ul></td><td><time datetime="${placement.changedAt}">${formats.instant(placement.changedAt) ?? placement.changedAt}</time></td></tr>`;
  });
  const table = rows.length
    ? html`<table class="requests"><caption class="visually-hidden">${t.caption}</caption>
<thead><tr><th scope="col">${t.columns.request}</th><th scope="col">${t.columns.clinics}</th><th scope="col">${t.columns.changed}</th></tr></thead>
<tbody>${rows}</tbody></table>`
    : html`<p class="empty">${view.search ? ownDataTexts.caseNumber.search.none(view.search.caseNumber) : states.length ? t.emptyFilter : t.empty}</p>`;
  return { 'requests-table': html`<div id="requests-table" data-live-part>${tabs}${table}</div>` };
}

/** The search by internal case number, posted (the number never stands in a URL), and what it found. */
function searchForm(context: PageContext, search: RequestsView['search']): Html {
  const s = ownDataTexts.caseNumber.search;
  return html`<form method="post" action="/workspace/requests/search" class="form search-form" role="search">${csrfField(context.signedIn?.csrfToken ?? '')}<label for="case-number-search">${s.label}</label> <input id="case-number-search" name="caseNumber" type="search" autocomplete="off" maxlength="64" spellcheck="false" value="${search?.caseNumber ?? ''}"> <button type="submit" class="button button-secondary">${s.button}</button>${
    search ? html` <a href="/workspace/requests">${s.all}</a>` : ''
  }</form>`;
}

/** A clinic of the request: its name, the state of its Task, and the Anfrage-Nr. it quotes on the phone. */
export function clinicLine(task: FhirTask, clinics: ReadonlyMap<string, ClinicRecord>, texts: WorkspaceTexts, formats: Formats): Html {
  const ik = ikOf(task);
  return html`<span class="clinic-name">${texts.clinicOf(clinics.get(ik)?.name, ik)}</span>: <span class="status status-${task.status}">${hospitalStatusText(task, texts)}</span>${deadlineMark(task, texts, formats)} <span class="meta">(${texts.hospital.request.number} ${requestNumberOf(task.id)})</span>`;
}

/**
 * The clinic's answer deadline while its answer is awaited (docs/workspace.md, "Antwortfristen"):
 * when it is due, or that it is overdue and since when.
 */
export function deadlineMark(task: FhirTask, texts: WorkspaceTexts, formats: Formats): Html {
  const t = texts.hospital.deadline;
  const overdue = overdueSinceOf(task);
  const deadline = deadlineOf(task);
  if (overdue) return html` <strong class="overdue">${t.overdue(formats.instant(deadline ?? overdue) ?? overdue)}</strong>`;
  if (!deadline || task.status !== 'requested') return html``;
  return html` <span class="deadline">${t.due(formats.instant(deadline) ?? deadline)}</span>`;
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
