import { TASK_STATUSES_OF_LIST_STATE, TaskListState, type ClinicTaskList, type ClinicTaskSummary, type TaskWorkspaceMarks } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import type { ListFilter, ListSort } from '../list-position';
import { departmentName } from '../request-details';
import type { Texts } from '../texts.de';
import { csrfField, layout, type PageContext } from './layout';
import { taskMarks, unseenLine } from './task-workspace';

export type { ListFilter } from '../list-position';
/** The inbox's tabs: every Task, then the list states in the contract's order. */
export const LIST_FILTERS: readonly ListFilter[] = ['all', ...TaskListState.options];

/** Whether a Task of this status belongs on the filter's tab (grouped as `GET /api/v1/clinic/tasks?state=` groups them). */
export function isInFilter(status: string, filter: ListFilter): boolean {
  return filter === 'all' || (TASK_STATUSES_OF_LIST_STATE[filter] as readonly string[]).includes(status);
}

/** The Task's state for a person: what it waits for, or what the clinic answered. */
export function statusText(task: Pick<ClinicTaskSummary, 'status' | 'businessStatus'>, texts: Texts): string {
  if (task.status === 'requested') return task.businessStatus ? texts.status.resubmitted : texts.status.requested;
  if (task.status === 'on-hold' && (task.businessStatus === 'query' || task.businessStatus === 'more-data-required')) {
    return texts.status.onHold[task.businessStatus];
  }
  return texts.status[task.status];
}

/** The department by name with its key, "Orthopädie (2300)", as the request's page names it (request-details.ts). */
export function specialtyText(request: ClinicTaskSummary['request'], texts: Texts): string {
  const specialty = request.specialty ? (texts.specialty[request.specialty] ?? request.specialty) : undefined;
  const code = request.departmentCode;
  if (!code) return specialty ?? texts.task.none;
  return specialty
    ? texts.departmentNamed(specialty, code)
    : departmentName({ departmentCode: code, specialty: undefined, source: 'department-key' }, undefined, texts);
}

/**
 * One row of the list; the live updates send the same markup. Lean on purpose, 1,000 of them make
 * one page: no optional end tags, no per-cell attributes (the narrow layout's cell labels come from
 * the stylesheet, inbox-style.ts).
 */
export function taskRow(task: ClinicTaskSummary, texts: Texts, formats: Formats, now: number, newSelection = false, marks?: TaskWorkspaceMarks): Html {
  const patient = task.patient.dataLevel === 'erased' ? texts.list.erased : texts.patientShort(task.patient.gender, task.patient.age);
  const diagnosis = task.mainDiagnosis ? [task.mainDiagnosis.code, task.mainDiagnosis.display].filter(Boolean).join(' ') : texts.task.none;
  const requester = task.request.requesterName ?? texts.ik(task.request.requesterIk);
  const open = task.status === 'requested';
  // The new selections (list-routes.ts) lead the list with a badge of their own; an automatic answer says so by its status.
  const badge = newSelection ? html`<span class="selection-badge">${texts.list.newSelectionBadge}</span> ` : '';
  const automatic = task.answeredAutomatically ? html` <span class="auto-badge">${texts.list.automatic}</span>` : '';
  return html`<tr class="task-row${open ? ' is-open' : ''}${newSelection ? ' is-new-selection' : ''}" data-task-id="${task.id}" data-version="${task.version}" data-status="${task.status}"${marks ? html` data-seen="${String(marks.seen)}"` : ''}><th scope="row">${badge}${marks ? taskMarks(marks, texts, formats, task.status === 'cancelled') : html`<span class="new-badge" hidden>${texts.list.newBadge}</span>`} <a href="/inbox/tasks/${task.id}">${patient}</a><td>${specialtyText(task.request, texts)}<td>${formats.day(task.request.occurrenceDate) ?? texts.task.none}<td>${deadlineCell(task, texts, formats)}<td>${diagnosis}<td>${requester}<td><time datetime="${task.authoredOn}">${formats.ago(task.authoredOn, now)}</time><td class="status status-${task.status}">${statusText(task, texts)}${automatic}
`;
}

/**
 * When the referrer needs the clinic's answer (docs/inbox.md, "Antwortfristen"): the deadline while the
 * Task waits for it, marked once it passed; nothing once answered.
 */
function deadlineCell(task: ClinicTaskSummary, texts: Texts, formats: Formats): Html | string {
  if (task.overdueSince) return html`<strong class="overdue">${texts.list.overdue}</strong> ${formats.instant(task.deadline) ?? ''}`;
  if (task.status !== 'requested' || !task.deadline) return texts.task.none;
  return formats.instant(task.deadline) ?? task.deadline;
}

/**
 * Where a page of the list is and the addresses it links (list-routes.ts, list-position.ts): the
 * page before (numbered pages) or the start (pages past them), the page after while more follow.
 */
export interface ListPager {
  page: number;
  pages: number;
  /** This page again (Liste aktualisieren). */
  self: string;
  /** The first page of each tab. */
  tabs: Record<ListFilter, string>;
  /** The first page of this tab in each order (the column headers' links), and in the default order. */
  sorts: Record<ListSort | 'default', string>;
  previous?: string;
  start?: string;
  next?: string;
}

/** What the list shows beside its rows: its order, the search kept for it, the new selections put on top. */
export interface ListView {
  list: ClinicTaskList;
  filter: ListFilter;
  sort?: ListSort;
  /** The search typed (kept in the browser sealed, never in the address). */
  search?: string;
  /** The Tasks selected by their referrer since the list was last shown, on top of it. */
  newSelections: readonly ClinicTaskSummary[];
  formats: Formats;
  cursor: string;
  now: number;
  live: boolean;
  pager: ListPager;
  /** A search the list refused (too long, or too many requests to search). */
  searchError?: string;
  /** Whether the tab is small enough to sort by the admission date (the API sorts at most MAX_SORTED_IN_MEMORY by it). */
  dateSortOffered: boolean;
  /** What the clinic shares of each row's Task (seen, who works on it), and how many of its Tasks are new to it (workspace-routes.ts). */
  marks?: ReadonlyMap<string, TaskWorkspaceMarks>;
  unseen?: number;
}

/** The most requests the API sorts by admission date or searches by text in one go (docs/api.md, "Clinic API"). */
export const MAX_SORTED_IN_MEMORY = 5000;

export function taskListPage(context: PageContext, view: ListView): Html {
  const { texts } = context;
  const t = texts.list;
  const { list, filter, pager } = view;
  const all = Object.values(list.counts).reduce((sum, count) => sum + count, 0);
  const countOf = (candidate: ListFilter) => (candidate === 'all' ? all : list.counts[candidate]);
  const selected = new Set(view.newSelections.map((task) => task.id));
  const rows = [
    ...view.newSelections.map((task) => taskRow(task, texts, view.formats, view.now, true, view.marks?.get(task.id))),
    ...list.items.filter((task) => !selected.has(task.id)).map((task) => taskRow(task, texts, view.formats, view.now, false, view.marks?.get(task.id))),
  ];

  return layout(context, {
    title: t.title,
    section: 'tasks',
    body: html`<div class="page-head">
<h1>${t.title}</h1>
${unseenLine(view.unseen, texts)}
<a class="button button-secondary" href="${pager.self}">${t.refresh}</a>
</div>
${view.newSelections.length ? html`<div class="notice notice-success new-selections" role="status"><p><strong>${t.newSelections(view.newSelections.length)}</strong></p></div>` : ''}
<nav aria-label="${t.filters}" class="filters"><ul>
${LIST_FILTERS.map(
  (candidate) =>
    html`<li><a href="${pager.tabs[candidate]}"${candidate === filter ? html` aria-current="page"` : ''}>${t.filter[candidate]} <span class="count" data-count="${candidate}">${countOf(candidate)}</span></a></li>`,
)}
</ul></nav>
${searchForm(context, view)}
<p class="hint">${view.live ? t.liveHint : view.sort ? html`${t.sortedBy[view.sort]}. <a href="${pager.sorts.default}">${t.sortDefault}</a>` : ''}</p>
<p id="live-status" class="visually-hidden" role="status" aria-live="polite" data-one="${t.arrived.one}" data-many="${t.arrived.many}"></p>
<table class="task-list" id="task-list" data-filter="${filter}" data-cursor="${view.cursor}"${view.live ? html` data-updates="/inbox/tasks/updates"` : ''}>
<caption class="visually-hidden">${view.sort ? `${t.title}, ${t.sortedBy[view.sort]}` : t.caption}</caption>
<thead><tr>
<th scope="col">${t.columns.patient}</th><th scope="col">${t.columns.specialty}</th>${sortableHeader(t.columns.admission, 'occurrence', view, texts)}${sortableHeader(t.columns.deadline, 'deadline', view, texts)}<th scope="col">${t.columns.diagnosis}</th><th scope="col">${t.columns.requester}</th>${sortableHeader(t.columns.received, '-authored', view, texts)}${sortableHeader(t.columns.status, 'status', view, texts)}
</tr></thead>
<tbody>
${rows}
</tbody>
</table>
<p class="empty" id="empty-list"${rows.length ? html` hidden` : ''}>${t.empty}</p>
${pagerOf(pager, texts)}`,
  });
}

/**
 * A column header that sorts (WAI-ARIA APG, sortable table): a link to the list in that order, or in
 * the other direction once it is sorted by it, and `aria-sort` on the header sorted by.
 */
function sortableHeader(label: string, first: ListSort, view: ListView, texts: Texts): Html {
  const t = texts.list;
  const column = first.replace(/^-/, '');
  const current = view.sort?.replace(/^-/, '') === column ? view.sort : undefined;
  // A link the API would refuse is not offered: a tab too large to sort by the (sealed) admission date.
  if (column === 'occurrence' && current === undefined && !view.dateSortOffered) return html`<th scope="col">${label}</th>`;
  const ascending = current !== undefined && !current.startsWith('-');
  const ariaSort = current === undefined ? '' : column === 'status' ? 'other' : ascending ? 'ascending' : 'descending';
  // status has one direction; the dates turn around on a second click.
  const next: ListSort = column === 'status' ? 'status' : current === undefined ? first : ((ascending ? `-${column}` : column) as ListSort);
  const order =
    column === 'status'
      ? t.sortOrders.status
      : column === 'occurrence' || column === 'deadline'
        ? next.startsWith('-')
          ? t.sortOrders.descending
          : t.sortOrders.ascending
        : next.startsWith('-')
          ? t.sortOrders.newest
          : t.sortOrders.oldest;
  const arrow = current === undefined ? '' : column === 'status' ? ' ▲' : ascending ? ' ▲' : ' ▼';
  return html`<th scope="col" class="sortable"${ariaSort ? html` aria-sort="${ariaSort}"` : ''}><a class="sort-link" href="${view.pager.sorts[next]}" aria-label="${t.sortBy(label, order)}">${label}<span aria-hidden="true">${arrow}</span></a></th>`;
}

/** The search: sent by POST and kept in the browser sealed, so that a diagnosis typed never stands in an address (docs/inbox.md, "Anfragen"). */
function searchForm(context: PageContext, view: ListView): Html {
  const t = context.texts.list;
  const csrf = context.signedIn ? csrfField(context.signedIn.csrfToken) : '';
  const result = view.search !== undefined ? html`<p class="search-result" role="status">${t.searchResult(view.search, view.list.total)}</p>` : '';
  const error = view.searchError ? html`<p class="field-error" id="search-error">${view.searchError}</p>` : '';
  return html`<form class="list-search" method="post" action="/inbox/tasks/search" role="search">
${csrf}<input type="hidden" name="filter" value="${view.filter}">${view.sort ? html`<input type="hidden" name="sort" value="${view.sort}">` : ''}
<label for="list-search">${t.searchLabel}</label>
<p class="hint" id="list-search-hint">${t.searchHint}</p>
${error}<div class="search-row"><input type="search" id="list-search" name="q" maxlength="100" autocomplete="off" value="${view.search ?? ''}" aria-describedby="list-search-hint${view.searchError ? ' search-error' : ''}"${view.searchError ? html` aria-invalid="true"` : ''}>
<button type="submit" class="button">${t.search}</button>${view.search !== undefined ? html` <button type="submit" class="button button-secondary" name="clear" value="1">${t.searchClear}</button>` : ''}</div>
</form>
${result}`;
}

/** The list's pager; nothing for a list of one page shown as its first. */
function pagerOf(pager: ListPager, texts: Texts): Html | '' {
  const t = texts.list;
  if (pager.pages <= 1 && pager.page <= 1) return '';
  const link = (href: string | undefined, label: string, rel?: 'prev' | 'next') =>
    href ? html`<a class="button button-secondary"${rel ? html` rel="${rel}"` : ''} href="${href}">${label}</a>` : '';
  return html`<nav class="pager" aria-label="${t.pager}"><p class="meta">${t.pageOf(pager.page, pager.pages)}</p><p>${link(pager.previous, t.newer, 'prev')} ${link(pager.start, t.first)} ${link(pager.next, t.more, 'next')}</p></nav>`;
}
