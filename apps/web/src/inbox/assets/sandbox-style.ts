/**
 * The sandbox's part of the stylesheet: its banner on every page, and the webhook inspector's page
 * (sandbox/pages/inspector.page.ts). Each check state carries its name as text; the colours only add to it.
 */
export const SANDBOX_STYLE = String.raw`
.banner-sandbox { background: var(--warn); color: #fff; font-weight: 700; text-align: center; padding: 0.4rem 1rem; }
.banner-sandbox p { margin: 0; }
.inspector .form select { font: inherit; padding: 0.45rem 0.6rem; border: 1px solid #6b7785; border-radius: 0.25rem; background: var(--surface); color: var(--text); max-width: 24rem; }
.inspector .form input[type="number"] { width: 8rem; }
.inspector .form input[type="text"] { width: 100%; max-width: 40rem; }
.receiver-address { display: inline-block; background: var(--surface); border: 1px solid var(--line); padding: 0.35rem 0.6rem; overflow-wrap: anywhere; }
.subscriptions { margin: 1rem 0; }
.subscriptions caption { text-align: left; font-weight: 600; padding-bottom: 0.25rem; }
.fail-state { font-weight: 600; }
.deliveries { list-style: none; padding: 0; margin: 1rem 0; }
.delivery { background: var(--surface); border: 1px solid var(--line); border-left: 0.35rem solid var(--line); border-radius: 0.3rem; margin-bottom: 0.5rem; }
.delivery[data-check="valid"] { border-left-color: var(--ok); }
.delivery[data-check="invalid"], .delivery[data-check="stale"] { border-left-color: var(--error); }
.delivery summary { cursor: pointer; padding: 0.5rem 0.75rem; display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; align-items: baseline; }
.delivery details > :not(summary) { margin-left: 0.75rem; margin-right: 0.75rem; }
.delivery h3 { font-size: 1rem; margin: 0.75rem 0 0.25rem; }
.check { display: inline-block; font-size: 0.875rem; font-weight: 700; padding: 0 0.45rem; border-radius: 0.2rem; border: 1px solid var(--muted); color: var(--text); }
.check-valid { background: var(--ok); border-color: var(--ok); color: #fff; }
.check-invalid, .check-stale { background: var(--error); border-color: var(--error); color: #fff; }
.on-purpose { color: var(--warn); }
.event { color: var(--muted); overflow-wrap: anywhere; }
.delivery-headers { margin: 0; font-size: 0.875rem; }
.delivery-headers div { display: grid; grid-template-columns: minmax(8rem, 14rem) 1fr; gap: 0 1rem; padding: 0.15rem 0; border-bottom: 1px solid var(--line); }
.delivery-headers dt { font-weight: 600; overflow-wrap: anywhere; }
.delivery-headers dd { margin: 0; overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
.delivery-body { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--page); border: 1px solid var(--line); padding: 0.5rem; font-size: 0.875rem; margin-bottom: 0.75rem; }
@media (max-width: 48em) { .delivery-headers div { grid-template-columns: 1fr; } }
`;
