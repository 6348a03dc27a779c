import type { BedCountView } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import { csrfField, layout, notice, type PageContext } from './layout';

export interface BedsView {
  /** The clinic's departments (GET /api/v1/kliniken), in its order. */
  departments: { code: string; label: string }[];
  /** Every day of the range, YYYY-MM-DD. */
  dates: string[];
  /** Today in the clinic's time zone, YYYY-MM-DD: earlier days are shown, not edited (docs/api.md, "Bed counts"). */
  today: string;
  from: string;
  to: string;
  counts: BedCountView[];
  /** Values the person typed that were refused, by input name. */
  entered?: Record<string, string>;
  /** The range form's values that were refused. */
  fill?: Record<string, string>;
  flash?: { kind: 'success' | 'error' | 'info'; message: string };
  notParticipating?: boolean;
  /** Whether routing answers for the clinic from these counts (GET /api/v1/clinic/capacity/auto-answer); absent when not participating. */
  automaticAnswers?: boolean;
  /** Whether referrers see these counts (GET /api/v1/clinic/capacity/visibility); absent when not participating. */
  shownToReferrers?: boolean;
  formats: Formats;
  previous: { from: string; to: string };
  next: { from: string; to: string };
}

/** The input name of one cell: department and date, both from fixed alphabets (digits and dashes). */
export function bedInputName(department: string, date: string): string {
  return `beds.${department}.${date}`;
}

/** "Mo 07.12." for 2026-12-07: the weekday and the day, as a clerk plans a week. */
export function dayLabel(texts: PageContext['texts'], date: string): string {
  return `${texts.beds.weekdays[weekdayOf(date)] ?? ''} ${date.slice(8, 10)}.${date.slice(5, 7)}.`;
}

/** 0 for Sunday to 6 for Saturday, of the calendar day YYYY-MM-DD. */
export function weekdayOf(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

function weekdayName(texts: PageContext['texts'], date: string): string {
  return texts.beds.weekdayNames[weekdayOf(date)] ?? '';
}

/**
 * The clinic's published bed counts as a grid (a row per day with its weekday, today marked, a column
 * per department), each cell of today and later a number input with what is already held
 * (automatically accepted), reserved (selected) and still free; days gone are shown, not edited.
 * The grid, the range fill, the automatic-answer and the visibility switch are one form with four buttons, so
 * that no button loses numbers typed elsewhere on the page (docs/inbox.md, "Betten").
 */
export function bedsPage(context: PageContext, view: BedsView): Html {
  const { texts } = context;
  const t = texts.beds;
  const countOf = (department: string, date: string) => view.counts.find((count) => count.department === department && count.date === date);
  const rangeHref = (range: { from: string; to: string }) => `/inbox/beds?${new URLSearchParams(range).toString()}`;

  const row = (date: string) => {
    const past = date < view.today;
    const isToday = date === view.today;
    const fullDate = view.formats.day(date) ?? date;
    const header = html`<th scope="row"${isToday ? html` aria-current="date"` : ''}><time datetime="${date}"><abbr title="${weekdayName(texts, date)}, ${fullDate}">${dayLabel(texts, date)}</abbr></time>${
      isToday ? html` <span class="day-badge">${t.today}</span>` : past ? html` <span class="visually-hidden">(${t.past})</span>` : ''
    }</th>`;
    const cells = view.departments.map((department) => {
      const count = countOf(department.code, date);
      const name = bedInputName(department.code, date);
      const takenId = `${name}-taken`.replace(/\./g, '-');
      const taken = count ? html`<span class="taken" id="${takenId}">${bookedText(t, count)}</span>` : '';
      if (past) {
        return html`<td data-label="${department.label}"><span class="past-count">${count ? String(count.freeBeds) : '–'}</span>${taken}</td>`;
      }
      const value = view.entered?.[name] ?? (count ? String(count.freeBeds) : '');
      return html`<td data-label="${department.label}"><input type="number" inputmode="numeric" min="0" step="1" name="${name}" value="${value}" aria-label="${t.free(department.label, fullDate)}"${count ? html` aria-describedby="${takenId}"` : ''}${
        // Typed, sent and not saved (refused): still unsaved for the warning before leaving.
        view.entered?.[name] === undefined ? '' : html` data-unsaved="true"`
      }>
<input type="hidden" name="was.${name}" value="${count ? String(count.freeBeds) : ''}">${taken}</td>`;
    });
    return html`<tr class="${past ? 'is-past' : isToday ? 'is-today' : ''}">${header}${cells}</tr>`;
  };

  const grid = view.departments.length
    ? html`<form method="post" action="/inbox/beds" class="form beds-form" id="beds-form" data-unsaved="${t.unsaved}">
${context.signedIn ? csrfField(context.signedIn.csrfToken) : ''}
<input type="hidden" name="from" value="${view.from}"><input type="hidden" name="to" value="${view.to}">
<div class="table-scroll">
<table class="beds" aria-describedby="beds-blank">
<caption>${t.caption}</caption>
<thead><tr><th scope="col">${t.date}</th>${view.departments.map((department) => html`<th scope="col">${department.label}</th>`)}</tr></thead>
<tbody>
${view.dates.map(row)}
</tbody>
</table>
</div>
<button type="submit" class="button">${t.save}</button>
${fillSection(context, view)}
${view.automaticAnswers === undefined ? '' : autoAnswerSection(context, view.automaticAnswers)}
${view.shownToReferrers === undefined ? '' : visibilitySection(context, view.shownToReferrers)}
</form>`
    : html`<p>${t.noDepartments}</p>`;

  return layout(context, {
    title: t.title,
    section: 'beds',
    body: html`<h1>${t.title}</h1>
<p>${t.intro}</p>
${view.flash ? notice(view.flash.kind, view.flash.message) : ''}
${view.notParticipating ? notice('warning', t.notParticipating) : ''}
<div class="blank-or-zero" id="beds-blank"><h2>${t.blankOrZero.title}</h2><ul><li>${t.blankOrZero.blank}</li><li>${t.blankOrZero.zero}</li><li>${t.blankOrZero.past}</li></ul></div>
<form method="get" action="/inbox/beds" class="form range">
<fieldset><legend>${t.range}</legend>
<div class="field-inline"><label for="from">${t.from}</label><input type="date" id="from" name="from" value="${view.from}" required></div>
<div class="field-inline"><label for="to">${t.to}</label><input type="date" id="to" name="to" value="${view.to}" required></div>
<button type="submit" class="button button-secondary">${t.show}</button>
</fieldset>
</form>
<p class="pager"><a href="${rangeHref(view.previous)}">← ${t.previous}</a> <a href="${rangeHref(view.next)}">${t.next} →</a></p>
${view.notParticipating ? '' : grid}`,
  });
}

/**
 * What is booked against a count and what is left: free is the capacity API's `available`
 * (published − held − reserved, never below 0); beds booked past the count (a selection after the
 * clinic's own acceptance, or a count lowered later) are shown as over-booked (docs/inbox.md, "Betten").
 */
function bookedText(t: PageContext['texts']['beds'], count: BedCountView): Html {
  const overbooked = count.held + count.reserved - count.freeBeds;
  return html`${t.taken(count.held, count.reserved, count.available)}${overbooked > 0 ? html`, <strong>${t.overbooked(overbooked)}</strong>` : ''}`;
}

/** One number for a department over a range of days (at most 31), optionally Monday to Friday only. */
function fillSection(context: PageContext, view: BedsView): Html {
  const t = context.texts.beds.fill;
  const entered = view.fill ?? {};
  const chosen = entered['fill.department'] ?? view.departments[0]?.code;
  return html`<section aria-labelledby="fill-heading" class="fill">
<h2 id="fill-heading">${t.title}</h2>
<p id="fill-intro">${t.intro}</p>
<fieldset aria-describedby="fill-intro"><legend>${t.legend}</legend>
<div class="field-inline"><label for="fill-department">${t.department}</label><select id="fill-department" name="fill.department">${view.departments.map(
    (department) => html`<option value="${department.code}"${department.code === chosen ? html` selected` : ''}>${department.label}</option>`,
  )}</select></div>
<div class="field-inline"><label for="fill-from">${t.from}</label><input type="date" id="fill-from" name="fill.from" min="${view.today}" value="${entered['fill.from'] ?? ''}"></div>
<div class="field-inline"><label for="fill-to">${t.to}</label><input type="date" id="fill-to" name="fill.to" min="${view.today}" value="${entered['fill.to'] ?? ''}"></div>
<div class="field-inline"><label for="fill-count">${t.count}</label><input type="number" inputmode="numeric" min="0" step="1" id="fill-count" name="fill.count" value="${entered['fill.count'] ?? ''}"></div>
<div class="choice"><input type="checkbox" id="fill-weekdays" name="fill.weekdaysOnly" value="1"${entered['fill.weekdaysOnly'] ? html` checked` : ''}><label for="fill-weekdays">${t.weekdaysOnly}</label></div>
</fieldset>
<button type="submit" class="button button-secondary" formaction="/inbox/beds/fill">${t.submit}</button>
</section>`;
}

/** The automatic-answer switch: two radio buttons (on, off) and its button, which saves typed numbers too. */
function autoAnswerSection(context: PageContext, enabled: boolean): Html {
  const t = context.texts.beds.autoAnswer;
  const choice = (value: 'on' | 'off', label: string, checked: boolean) =>
    html`<div class="choice"><input type="radio" id="auto-answer-${value}" name="automaticAnswers" value="${value}"${checked ? html` checked` : ''}><label for="auto-answer-${value}">${label}</label></div>`;
  return html`<section aria-labelledby="auto-heading">
<h2 id="auto-heading">${t.title}</h2>
<p id="auto-intro">${t.intro} ${t.alsoSaves}</p>
<input type="hidden" name="was.automaticAnswers" value="${enabled ? 'on' : 'off'}">
<fieldset aria-describedby="auto-intro"><legend>${t.legend}</legend>
${choice('on', t.on, enabled)}
${choice('off', t.off, !enabled)}
</fieldset>
<button type="submit" class="button" formaction="/inbox/beds/auto-answer">${t.save}</button>
</section>`;
}

/** Whether referrers see the free beds: two radio buttons (on, off) and its button, which saves typed numbers too. */
function visibilitySection(context: PageContext, shown: boolean): Html {
  const t = context.texts.beds.visibility;
  const choice = (value: 'on' | 'off', label: string, checked: boolean) =>
    html`<div class="choice"><input type="radio" id="visibility-${value}" name="shownToReferrers" value="${value}"${checked ? html` checked` : ''}><label for="visibility-${value}">${label}</label></div>`;
  return html`<section aria-labelledby="visibility-heading">
<h2 id="visibility-heading">${t.title}</h2>
<p id="visibility-intro">${t.intro} ${t.alsoSaves}</p>
<input type="hidden" name="was.shownToReferrers" value="${shown ? 'on' : 'off'}">
<fieldset aria-describedby="visibility-intro"><legend>${t.legend}</legend>
${choice('on', t.on, shown)}
${choice('off', t.off, !shown)}
</fieldset>
<button type="submit" class="button" formaction="/inbox/beds/visibility">${t.save}</button>
</section>`;
}
