/**
 * The beds page's part of the inbox's stylesheet (pages/beds.page.ts; docs/inbox.md, "Betten"),
 * after the shared rules: today and days gone, "Leer oder 0?", the range fill, and below 48em the
 * grid as one card per day, each number labelled with its department (the cell's data-label), so
 * that it fits 390 px whatever the number of departments.
 */
export const BEDS_STYLE = String.raw`
.beds thead th { overflow-wrap: anywhere; }
.beds tr.is-past { color: var(--muted); background: var(--page); }
.beds tr.is-today th[scope="row"] { border-left: 0.3rem solid var(--accent); }
.beds abbr { text-decoration: none; }
.day-badge { display: inline-block; background: var(--accent); color: #fff; font-size: 0.75rem; font-weight: 700; padding: 0 0.4rem; border-radius: 0.75rem; }
.past-count { display: block; }
.blank-or-zero { background: var(--surface); border: 1px solid var(--line); border-radius: 0.3rem; padding: 0.5rem 1rem; margin: 0 0 1rem; max-width: 48rem; }
.blank-or-zero h2 { font-size: 1rem; margin: 0.25rem 0; }
.blank-or-zero ul { margin: 0; padding-left: 1.25rem; }
.beds-form section { margin-top: 1.5rem; }
.fill select { font: inherit; padding: 0.45rem 0.6rem; border: 1px solid #6b7785; border-radius: 0.25rem; background: var(--surface); color: var(--text); max-width: 100%; }
.fill .field-inline { flex-wrap: wrap; margin-bottom: 0.5rem; }
.fill input[type="number"] { width: 6rem; }

@media (max-width: 48em) {
  /* The beds grid as one card per day, each number labelled with its department: fits 390 px whatever the number of departments. */
  .beds thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .beds, .beds tbody, .beds tr, .beds th, .beds td { display: block; width: 100%; }
  .beds caption { display: block; text-align: left; }
  .beds tr { border: 1px solid var(--line); border-radius: 0.3rem; margin-bottom: 0.5rem; }
  .beds td, .beds th[scope="row"] { border: 0; padding: 0.25rem 0.75rem; }
  .beds td { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 0 0.5rem; align-items: center; }
  .beds td::before { content: attr(data-label); font-weight: 600; color: var(--muted); overflow-wrap: anywhere; }
  .beds td .taken { grid-column: 1 / -1; }
}
`;
