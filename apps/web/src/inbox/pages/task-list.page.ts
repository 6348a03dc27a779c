import { TASK_STATUSES_OF_LIST_STATE, TaskListState, type ClinicTaskList, type ClinicTaskSummary } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import type { Texts } from '../texts.de';
import { layout, type PageContext } from './layout';

export type ListFilter = TaskListState | 'all';
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

export function specialtyText(request: ClinicTaskSummary['request'], texts: Texts): string {
  const specialty = request.specialty ? (texts.specialty[request.specialty] ?? request.specialty) : undefined;
  const department = request.departmentCode ? texts.department(request.departmentCode) : undefined;
  return [specialty, department].filter(Boolean).join(' · ') || texts.task.none;
}

/**
 * One row of the list; the live updates send the same markup. Lean on purpose, 1,000 of them make
 * one page: no optional end tags, no per-cell attributes (the narrow layout's cell labels come from
 * the stylesheet, inbox-style.ts).
 */
export function taskRow(task: ClinicTaskSummary, texts: Texts, formats: Formats, now: number): Html {
  const patient = task.patient.dataLevel === 'erased' ? texts.list.erased : texts.patientShort(task.patient.gender, task.patient.age);
  const diagnosis = task.mainDiagnosis ? [task.mainDiagnosis.code, task.mainDiagnosis.display].filter(Boolean).join(' ') : texts.task.none;
  const requester = task.request.requesterName ?? texts.ik(task.request.requesterIk);
  const open = task.status === 'requested';
  return html`<tr class="task-row${open ? ' is-open' : ''}" data-task-id="${task.id}" data-version="${task.version}" data-status="${task.status}"><th scope="row"><span class="new-badge" hidden>${texts.list.newBadge}</span> <a href="/inbox/tasks/${task.id}">${patient}</a><td>${specialtyText(task.request, texts)}<td>${formats.day(task.request.occurrenceDate) ?? texts.task.none}<td>${diagnosis}<td>${requester}<td><time datetime="${task.authoredOn}">${formats.ago(task.authoredOn, now)}</time><td class="status status-${task.status}">${statusText(task, texts)}
`;
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
  previous?: string;
  start?: string;
  next?: string;
}

export function taskListPage(
  context: PageContext,
  view: { list: ClinicTaskList; filter: ListFilter; formats: Formats; cursor: string; now: number; live: boolean; pager: ListPager },
): Html {
  const { texts } = context;
  const t = texts.list;
  const { list, filter, pager } = view;
  const all = Object.values(list.counts).reduce((sum, count) => sum + count, 0);
  const countOf = (candidate: ListFilter) => (candidate === 'all' ? all : list.counts[candidate]);

  return layout(context, {
    title: t.title,
    section: 'tasks',
    body: html`<div class="page-head">
<h1>${t.title}</h1>
<a class="button button-secondary" href="${pager.self}">${t.refresh}</a>
</div>
<nav aria-label="${t.filters}" class="filters"><ul>
${LIST_FILTERS.map(
  (candidate) =>
    html`<li><a href="${pager.tabs[candidate]}"${candidate === filter ? html` aria-current="page"` : ''}>${t.filter[candidate]} <span class="count" data-count="${candidate}">${countOf(candidate)}</span></a></li>`,
)}
</ul></nav>
<p class="hint">${t.liveHint}</p>
<p id="live-status" class="visually-hidden" role="status" aria-live="polite" data-one="${t.arrived.one}" data-many="${t.arrived.many}"></p>
<table class="task-list" id="task-list" data-filter="${filter}" data-cursor="${view.cursor}"${view.live ? html` data-updates="/inbox/tasks/updates"` : ''}>
<caption class="visually-hidden">${t.caption}</caption>
<thead><tr>
<th scope="col">${t.columns.patient}</th><th scope="col">${t.columns.specialty}</th><th scope="col">${t.columns.admission}</th><th scope="col">${t.columns.diagnosis}</th><th scope="col">${t.columns.requester}</th><th scope="col">${t.columns.received}</th><th scope="col">${t.columns.status}</th>
</tr></thead>
<tbody>
${list.items.map((task) => taskRow(task, texts, view.formats, view.now))}
</tbody>
</table>
<p class="empty" id="empty-list"${list.items.length ? html` hidden` : ''}>${t.empty}</p>
${pagerOf(pager, texts)}`,
  });
}

/** The list's pager; nothing for a list of one page shown as its first. */
function pagerOf(pager: ListPager, texts: Texts): Html | '' {
  const t = texts.list;
  if (pager.pages <= 1 && pager.page <= 1) return '';
  const link = (href: string | undefined, label: string, rel?: 'prev' | 'next') =>
    href ? html`<a class="button button-secondary"${rel ? html` rel="${rel}"` : ''} href="${href}">${label}</a>` : '';
  return html`<nav class="pager" aria-label="${t.pager}"><p class="meta">${t.pageOf(pager.page, pager.pages)}</p><p>${link(pager.previous, t.newer, 'prev')} ${link(pager.start, t.first)} ${link(pager.next, t.more, 'next')}</p></nav>`;
}
