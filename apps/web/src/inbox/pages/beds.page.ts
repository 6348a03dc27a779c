import type { BedCountView } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import { csrfField, layout, notice, type PageContext } from './layout';

export interface BedsView {
  /** The clinic's departments (GET /api/v1/kliniken), in its order. */
  departments: { code: string; label: string }[];
  /** Every day of the range, YYYY-MM-DD. */
  dates: string[];
  from: string;
  to: string;
  counts: BedCountView[];
  /** Values the person typed that were refused, by input name. */
  entered?: Record<string, string>;
  flash?: { kind: 'success' | 'error' | 'info'; message: string };
  notParticipating?: boolean;
  /** Whether routing answers for the clinic from these counts (GET /api/v1/clinic/capacity/auto-answer); absent when not participating. */
  automaticAnswers?: boolean;
  formats: Formats;
  previous: { from: string; to: string };
  next: { from: string; to: string };
}

/** The input name of one cell: department and date, both from fixed alphabets (digits and dashes). */
export function bedInputName(department: string, date: string): string {
  return `beds.${department}.${date}`;
}

/**
 * The clinic's published bed counts as a grid (a row per day, a column per department), each cell a
 * number input with what is already held (automatically accepted), reserved (selected) and still
 * free; one form saves every changed cell.
 */
export function bedsPage(context: PageContext, view: BedsView): Html {
  const { texts } = context;
  const t = texts.beds;
  const countOf = (department: string, date: string) => view.counts.find((count) => count.department === department && count.date === date);
  const rangeHref = (range: { from: string; to: string }) => `/inbox/beds?${new URLSearchParams(range).toString()}`;

  const grid = view.departments.length
    ? html`<form method="post" action="/inbox/beds" class="form">
${context.signedIn ? csrfField(context.signedIn.csrfToken) : ''}
<input type="hidden" name="from" value="${view.from}"><input type="hidden" name="to" value="${view.to}">
<div class="table-scroll">
<table class="beds">
<caption>${t.caption}</caption>
<thead><tr><th scope="col">${t.date}</th>${view.departments.map((department) => html`<th scope="col">${department.label}</th>`)}</tr></thead>
<tbody>
${view.dates.map(
  (date) =>
    html`<tr><th scope="row">${view.formats.day(date)}</th>${view.departments.map((department) => {
      const count = countOf(department.code, date);
      const name = bedInputName(department.code, date);
      const value = view.entered?.[name] ?? (count ? String(count.freeBeds) : '');
      const takenId = `${name}-taken`.replace(/\./g, '-');
      return html`<td><input type="number" inputmode="numeric" min="0" step="1" name="${name}" value="${value}" aria-label="${t.free(department.label, view.formats.day(date) ?? date)}"${count ? html` aria-describedby="${takenId}"` : ''}>
<input type="hidden" name="was.${name}" value="${count ? String(count.freeBeds) : ''}">${count ? html`<span class="taken" id="${takenId}">${bookedText(t, count)}</span>` : ''}</td>`;
    })}</tr>`,
)}
</tbody>
</table>
</div>
<button type="submit" class="button">${t.save}</button>
</form>`
    : html`<p>${t.noDepartments}</p>`;

  return layout(context, {
    title: t.title,
    section: 'beds',
    body: html`<h1>${t.title}</h1>
<p>${t.intro}</p>
${view.flash ? notice(view.flash.kind, view.flash.message) : ''}
${view.notParticipating ? notice('warning', t.notParticipating) : ''}
<form method="get" action="/inbox/beds" class="form range">
<fieldset><legend>${t.range}</legend>
<div class="field-inline"><label for="from">${t.from}</label><input type="date" id="from" name="from" value="${view.from}" required></div>
<div class="field-inline"><label for="to">${t.to}</label><input type="date" id="to" name="to" value="${view.to}" required></div>
<button type="submit" class="button button-secondary">${t.show}</button>
</fieldset>
</form>
<p class="pager"><a href="${rangeHref(view.previous)}">← ${t.previous}</a> <a href="${rangeHref(view.next)}">${t.next} →</a></p>
${view.notParticipating ? '' : grid}
${view.automaticAnswers === undefined ? '' : autoAnswerSection(context, view, view.automaticAnswers)}`,
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

/** The automatic-answer switch: two radio buttons (on, off) and a button, its own form. */
function autoAnswerSection(context: PageContext, view: BedsView, enabled: boolean): Html {
  const t = context.texts.beds.autoAnswer;
  const choice = (value: 'on' | 'off', label: string, checked: boolean) =>
    html`<div class="choice"><input type="radio" id="auto-answer-${value}" name="automaticAnswers" value="${value}"${checked ? html` checked` : ''}><label for="auto-answer-${value}">${label}</label></div>`;
  return html`<section aria-labelledby="auto-heading">
<h2 id="auto-heading">${t.title}</h2>
<p id="auto-intro">${t.intro}</p>
<form method="post" action="/inbox/beds/auto-answer" class="form">
${context.signedIn ? csrfField(context.signedIn.csrfToken) : ''}
<input type="hidden" name="from" value="${view.from}"><input type="hidden" name="to" value="${view.to}">
<fieldset aria-describedby="auto-intro"><legend>${t.legend}</legend>
${choice('on', t.on, enabled)}
${choice('off', t.off, !enabled)}
</fieldset>
<button type="submit" class="button">${t.save}</button>
</form>
</section>`;
}
