import type { Texts } from '../texts.de';
import { BEDS_STYLE } from './beds-style';
import { SANDBOX_STYLE } from './sandbox-style';

/**
 * The inbox's one stylesheet, served as /inbox/assets/inbox-<hash>.css. Sizes in rem and em so
 * that the page reflows at 200 % zoom; below 48em the request list turns into one card per request
 * instead of scrolling sideways, each cell labelled with its column's name (from the texts, so the
 * list's 1,000 rows need no label attributes). Colours meet WCAG AA contrast; state is never shown
 * by colour alone (badges and "geändert" carry text).
 */
export function inboxStyle(texts: Texts): string {
  const { columns } = texts.list;
  const labels = [columns.specialty, columns.admission, columns.deadline, columns.diagnosis, columns.requester, columns.received, columns.status]
    .map((label, index) => `  .task-list td:nth-of-type(${index + 1})::before { content: "${cssString(label)}: "; }`)
    .join('\n');
  return `${STYLE}\n@media (max-width: 48em) {\n${labels}\n}\n${BEDS_STYLE}${SANDBOX_STYLE}`;
}

/** A CSS string's content: backslash and quote escaped, no line breaks. */
function cssString(text: string): string {
  return text.replace(/[\\"]/g, (character) => `\\${character}`).replace(/[\r\n]/g, ' ');
}

const STYLE = String.raw`
:root {
  --text: #1b1f24;
  --muted: #4a5561;
  --line: #c9d1d9;
  --surface: #ffffff;
  --page: #f4f6f8;
  --accent: #0b5cad;
  --accent-dark: #08457f;
  --new: #8a1c7c;
  --ok: #1d6b2f;
  --warn: #7a4b00;
  --error: #a4161a;
  --mark: #fff1a8;
  --focus: #1b1f24;
  --focus-halo: #ffd34d;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 100%;
  line-height: 1.5;
  color: var(--text);
  background: var(--page);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
a:hover { color: var(--accent-dark); }
/* The focus ring: dark on every background of the inbox (over 3:1: WCAG 1.4.11), a light halo inside it beside dark controls. */
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 2px var(--focus-halo); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.skip-link { position: absolute; left: 0.5rem; top: -3rem; background: var(--surface); padding: 0.5rem 1rem; z-index: 10; }
.skip-link:focus { top: 0.5rem; }

.site-header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.5rem; padding: 0.75rem 1.5rem; background: var(--surface); border-bottom: 1px solid var(--line); }
.site-header p { margin: 0; }
.brand { font-weight: 700; font-size: 1.125rem; }
.clinic { color: var(--muted); }
.nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; margin: 0; padding: 0; }
.nav a { text-decoration: none; padding: 0.25rem 0; }
.nav a[aria-current="page"] { font-weight: 700; border-bottom: 3px solid var(--accent); }
.logout { margin-left: auto; }

main { display: block; padding: 1.5rem; max-width: 90rem; margin: 0 auto; }
main:focus { outline: none; }
h1 { font-size: 1.75rem; margin: 0 0 1rem; }
h2 { font-size: 1.25rem; margin: 1.75rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 0 0 0.25rem; }
.narrow { max-width: 28rem; }
.page-head { display: flex; flex-wrap: wrap; gap: 1rem; align-items: baseline; justify-content: space-between; }
.hint, .meta, .note-author { color: var(--muted); }

.button { display: inline-block; font: inherit; font-weight: 600; padding: 0.5rem 1.1rem; border-radius: 0.3rem; border: 2px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; }
.button:hover { background: var(--accent-dark); border-color: var(--accent-dark); color: #fff; }
.button-secondary { background: var(--surface); color: var(--accent); }
.button-secondary:hover { background: #e8f0f9; color: var(--accent-dark); }
/* The selected clinic's withdrawal of its acceptance (withdraw-form.ts): an action that cannot be undone. */
.button-danger { background: var(--error); border-color: var(--error); }
.button-danger:hover { background: #7d1013; border-color: #7d1013; }
.inline-buttons { display: flex; flex-wrap: wrap; gap: 1rem; }

.form .field { margin: 0 0 1rem; display: flex; flex-direction: column; gap: 0.25rem; }
.form label { font-weight: 600; }
.form input[type="text"], .form input[type="password"], .form input[type="date"], .form input[type="number"], .form textarea {
  font: inherit; padding: 0.45rem 0.6rem; border: 1px solid #6b7785; border-radius: 0.25rem; background: var(--surface); color: var(--text); max-width: 100%;
}
.form textarea { width: 100%; max-width: 48rem; }
.form [aria-invalid="true"] { border: 2px solid var(--error); }
fieldset { border: 1px solid var(--line); border-radius: 0.3rem; padding: 0.75rem 1rem; margin: 0 0 1rem; }
legend { font-weight: 700; padding: 0 0.25rem; }
.choice { display: flex; align-items: center; gap: 0.5rem; margin: 0.35rem 0; }
.choice input { width: 1.25rem; height: 1.25rem; }
.choice label { font-weight: 400; }
.field-error { color: var(--error); font-weight: 600; margin: 0; }
.field-inline { display: inline-flex; align-items: center; gap: 0.5rem; margin-right: 1rem; }

.notice { border-left: 0.35rem solid var(--accent); background: var(--surface); padding: 0.75rem 1rem; margin: 1rem 0; }
.notice-success { border-color: var(--ok); }
.notice-warning { border-color: var(--warn); }
.notice-error { border-color: var(--error); }
.banner-automatic { border-left: 0.35rem solid var(--warn); background: #fff4e0; padding: 0.5rem 1rem; margin: 0.5rem 0 1rem; }
.notice p { margin: 0 0 0.25rem; }
.notice ul { margin: 0; }

.filters ul { display: flex; flex-wrap: wrap; gap: 0.5rem; list-style: none; padding: 0; margin: 0 0 0.75rem; }
.filters a { display: inline-block; padding: 0.35rem 0.8rem; border: 1px solid var(--line); border-radius: 1.5rem; background: var(--surface); text-decoration: none; }
.filters a[aria-current="page"] { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 700; }
.count { display: inline-block; min-width: 1.5em; text-align: center; font-weight: 700; }

table { border-collapse: collapse; width: 100%; background: var(--surface); }
/* Column widths from the header row, not from 1,000 rows' content: laying out the list stays cheap. */
.task-list { table-layout: fixed; }
.task-list thead th:nth-child(1) { width: 12%; }
.task-list thead th:nth-child(2) { width: 13%; }
.task-list thead th:nth-child(3) { width: 10%; }
.task-list thead th:nth-child(4) { width: 11%; }
.task-list thead th:nth-child(5) { width: 19%; }
.task-list thead th:nth-child(6) { width: 12%; }
.task-list thead th:nth-child(7) { width: 10%; }
.task-list thead th:nth-child(8) { width: 13%; }
th, td { text-align: left; vertical-align: top; padding: 0.5rem 0.6rem; border-bottom: 1px solid var(--line); }
thead th { font-size: 0.875rem; color: var(--muted); border-bottom: 2px solid var(--line); }
.task-row.is-open th[scope="row"] { border-left: 0.3rem solid var(--accent); }
.task-row.is-new { background: #fbf3fa; }
.task-row.is-new a { font-weight: 700; }
.new-badge { display: inline-block; background: var(--new); color: #fff; font-size: 0.75rem; font-weight: 700; padding: 0.05rem 0.45rem; border-radius: 0.75rem; margin-right: 0.25rem; }
.new-badge[hidden] { display: none; }
.overdue { color: var(--error); }
.deadline { color: var(--muted); }
.status { font-weight: 600; }
.status-requested { color: var(--accent-dark); }
.status-accepted, .status-in-progress { color: var(--ok); }
.status-rejected, .status-cancelled { color: var(--muted); }
.status-on-hold { color: var(--warn); }
.empty { color: var(--muted); }
/* The list: sort links in the column headers, the search, new selections on top, automatic answers marked. */
.sort-link { color: inherit; }
th[aria-sort] .sort-link { color: var(--text); font-weight: 700; }
.list-search { margin: 0 0 0.5rem; }
.list-search label { font-weight: 600; }
.list-search .hint { margin: 0 0 0.25rem; }
.search-row { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.search-row input { flex: 1 1 14rem; min-width: 0; max-width: 30rem; }
.search-result { font-weight: 600; }
.task-row.is-new-selection { background: #eef8f0; }
.selection-badge { display: inline-block; background: var(--ok); color: #fff; font-size: 0.75rem; font-weight: 700; padding: 0.05rem 0.45rem; border-radius: 0.75rem; margin-right: 0.25rem; }
.auto-badge { display: inline-block; font-size: 0.75rem; font-weight: 600; color: var(--text); border: 1px solid var(--muted); padding: 0 0.35rem; border-radius: 0.2rem; }

.fields { margin: 0; background: var(--surface); border: 1px solid var(--line); border-radius: 0.3rem; }
.field-row { display: grid; grid-template-columns: minmax(10rem, 16rem) 1fr; gap: 0.25rem 1rem; padding: 0.45rem 0.75rem; border-bottom: 1px solid var(--line); }
.field-row:last-child { border-bottom: 0; }
.field-row dt { font-weight: 600; color: var(--muted); }
.field-row dd { margin: 0; overflow-wrap: anywhere; }
.field-row.is-changed { background: #fffbe0; }
mark.changed { background: var(--mark); color: var(--text); font-size: 0.8rem; font-weight: 700; padding: 0 0.3rem; border: 1px solid #b59a00; border-radius: 0.2rem; }
.plain { list-style: none; margin: 0; padding: 0; }
.url { color: var(--muted); font-size: 0.875rem; overflow-wrap: anywhere; }
.pre { white-space: pre-wrap; }
.selected { border: 3px solid var(--ok); background: #eef8f0; padding: 0.5rem 1rem 1rem; border-radius: 0.3rem; }
.selected h2 { margin-top: 0.5rem; }
.patient-name { font-size: 1.5rem; font-weight: 700; margin: 0.25rem 0 0.75rem; }
.history > li { margin-bottom: 0.75rem; }
/* The clinic's answers, one entry each with its note under it (task-answers.ts). */
.answer-history > li { margin-bottom: 0.75rem; }
.answer-history p { margin: 0; }
.answer-note { padding-left: 0.75rem; border-left: 0.2rem solid var(--line); white-space: pre-wrap; overflow-wrap: anywhere; }
.history p { margin: 0; }
/* The clinic's own workspace of a request (pages/task-workspace.ts): who works on it, internal notes. */
.workspace-assignee { font-weight: 600; }
.workspace-action { margin: 0.5rem 0 1rem; }
.internal-notes { list-style: none; padding: 0; }
.internal-notes > li { margin-bottom: 0.75rem; border-left: 0.25rem solid var(--muted); padding-left: 0.5rem; }
.internal-notes p { margin: 0; }
.note-text { white-space: pre-wrap; overflow-wrap: anywhere; }
.assignee-mark { display: block; color: var(--muted); font-size: 0.875rem; }
.changes del { background: #fde8e8; }
.changes ins { background: #e6f4ea; text-decoration: none; }
.documents li { margin-bottom: 0.4rem; }
.documents a { margin-left: 0.5rem; }
.notes li { margin-bottom: 0.25rem; }

/* A request: its number, then the summary with the answer beside it on a wide screen (80em at 1280 px; one column at 200 % zoom). */
.page-actions { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; }
.request-number { font-size: 1.25rem; margin: -0.5rem 0 0.5rem; }
.request-number strong { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; letter-spacing: 0.05em; }
/* A telephone number reads and dials as one: never broken over two lines. */
.contact-phone { white-space: nowrap; }
.task-top { display: grid; gap: 0 1.5rem; align-items: start; }
.task-top > section > h2 { margin-top: 1rem; }
/* The answer (or the withdrawal) and the clinic's workspace, one above the other beside the summary. */
.task-side > section { display: flow-root; }
.task-side > section > h2 { margin-top: 1rem; }
@media print { .workspace { display: none !important; } }
@media (min-width: 64em) { .task-top.with-answer { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); } }
@media (min-width: 48.01em) { .summary .field-row { grid-template-columns: minmax(8rem, 12rem) 1fr; } }
.print-actions { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 1.5rem; }
/*
 * Printed (the print view, or the request's page with the browser's print command): the request
 * alone on one or two A4 pages, no navigation, no forms, no pagers, no history.
 */
@media print {
  :root { font-size: 10pt; line-height: 1.3; background: #fff; }
  @page { size: A4; margin: 14mm 14mm 16mm; }
  .skip-link, .site-header, .page-actions, .print-actions, form, .answer, .pager, section[aria-labelledby="history-heading"], .legend { display: none !important; }
  main { padding: 0; max-width: none; }
  h1 { font-size: 1.4rem; margin: 0 0 0.25rem; }
  h2 { font-size: 1.05rem; margin: 0.6rem 0 0.2rem; break-after: avoid; }
  .request-number { margin: 0 0 0.25rem; }
  .notice { margin: 0.4rem 0; padding: 0.3rem 0.6rem; }
  .task-top { display: block; }
  .field-row, .summary .field-row { grid-template-columns: 11rem 1fr; padding: 0.15rem 0.5rem; break-inside: avoid; }
  .print-sections { columns: 2; column-gap: 1.5rem; }
  .print-sections section { break-inside: avoid; }
  .print-sections .field-row { grid-template-columns: 8.5rem 1fr; }
  .field-row dt { hyphens: auto; overflow-wrap: anywhere; }
  a { color: inherit; text-decoration: none; }
}

.table-scroll { overflow-x: auto; }
.beds input[type="number"] { width: 5.5rem; }
.beds .taken { display: block; font-size: 0.8rem; color: var(--muted); }
.range fieldset { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
.pager { display: flex; justify-content: space-between; max-width: 40rem; }

@media (max-width: 48em) {
  main { padding: 1rem; }
  .site-header { padding: 0.5rem 1rem; }
  .logout { margin-left: 0; }
  .task-list, .task-list tbody, .task-list tr, .task-list th, .task-list td { display: block; width: 100%; }
  /* Stacked rows label their cells; the header row keeps only its sort links, as a row of links. */
  .task-list thead { display: block; }
  .task-list thead tr { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; border: 0; margin-bottom: 0.5rem; }
  .task-list thead th { display: none; }
  .task-list thead th.sortable { display: block; width: auto; border: 0; padding: 0.2rem 0; }
  .task-list tr { border: 1px solid var(--line); border-radius: 0.3rem; margin-bottom: 0.75rem; }
  .task-list td, .task-list th[scope="row"] { border: 0; padding: 0.2rem 0.75rem; }
  .task-list td::before { font-weight: 600; color: var(--muted); }
  .field-row { grid-template-columns: 1fr; }
}
`;
