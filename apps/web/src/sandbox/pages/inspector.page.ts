import type { SubscriptionView } from '@bedrequest/contracts';
import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import { inspectorTexts as t } from '../inspector.texts.de';
import { KEPT_DELIVERIES, type FailureMode, type RecordedDelivery } from '../receiver-store';
import type { KnownSecret } from '../signature-check';
import { deliveryEntry, secretName } from './delivery-entry';
import { receiverCheckSection, type ReceiverCheckView } from './receiver-check';

/** The fail-next form as entered, and what was refused in it. */
export interface FailForm {
  count: string;
  mode: 'status' | 'timeout';
  status: string;
  errors: { count?: string; status?: string };
}

export interface InspectorView {
  /** The receiver's address, which subscriptions name as their callbackUrl. */
  address: string;
  /** The party's subscriptions; undefined when they could not be read. */
  subscriptions: readonly SubscriptionView[] | undefined;
  secrets: readonly KnownSecret[];
  failures: { left: number; mode?: FailureMode };
  /** Newest first. */
  deliveries: readonly RecordedDelivery[];
  formats: Formats;
  csrfToken: string;
  flash?: { kind: 'success' | 'error'; message: string };
  secretForm?: { value: string; error: string };
  failForm?: FailForm;
  /** The receiver check's form and, once run, its result. */
  check?: ReceiverCheckView;
}

/** Where the inspector is, below the workspace. */
export const INSPECTOR_PATH = '/workspace/sandbox/webhooks';

/** The webhook inspector (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)"). */
export function inspectorPage(context: PageContext, view: InspectorView): Html {
  return layout(context, {
    title: t.title,
    section: 'webhooks',
    body: html`<div class="inspector">
<h1>${t.title}</h1>
<p>${t.intro}</p>
${view.flash ? notice(view.flash.kind, view.flash.message) : ''}
<section aria-labelledby="address-heading"><h2 id="address-heading">${t.address.heading}</h2>
<p>${t.address.intro}</p>
<p><code id="receiver-address" class="receiver-address">${view.address}</code></p>
</section>
${subscriptionSection(view)}
${secretSection(view)}
${failSection(view)}
${receiverCheckSection(`${INSPECTOR_PATH}/check`, view.csrfToken, view.check)}
${deliveriesSection(view)}
</div>`,
  });
}

function subscriptionSection(view: InspectorView): Html {
  const s = t.subscription;
  // By the receiver's path: the same receiver whichever origin the subscription names it by.
  const receiverPath = new URL(view.address).pathname;
  const target = (subscription: SubscriptionView) => (subscription.callbackUrl.endsWith(receiverPath) ? s.here : s.elsewhere(subscription.callbackUrl));
  const row = (subscription: SubscriptionView) =>
    html`<tr data-subscription="${subscription.id}"><th scope="row">${subscription.eventType}</th><td>${target(subscription)}</td><td>${
      subscription.status === 'active' ? s.active : s.disabled(subscription.disabledReason ?? '')
    }</td><td>${subscription.lastError ? `${subscription.lastError.error ?? ''} (${view.formats.instant(subscription.lastError.at) ?? ''})` : '–'}</td></tr>`;
  const list =
    view.subscriptions === undefined
      ? html`<p>${s.unreadable}</p>`
      : view.subscriptions.length === 0
        ? html`<p>${s.none}</p>`
        : html`<table class="subscriptions"><caption>${s.listCaption}</caption>
<thead><tr><th scope="col">${s.columns.eventType}</th><th scope="col">${s.columns.target}</th><th scope="col">${s.columns.status}</th><th scope="col">${s.columns.lastError}</th></tr></thead>
<tbody>${view.subscriptions.map(row)}</tbody></table>`;
  return html`<section aria-labelledby="subscription-heading"><h2 id="subscription-heading">${s.heading}</h2>
<p>${s.intro}</p>
<form method="post" action="${INSPECTOR_PATH}/subscribe" class="form">
${csrfField(view.csrfToken)}
<div class="field"><label for="subscribe-event-type">${s.eventType}</label><select id="subscribe-event-type" name="eventType"><option value="AdmissionResponse" selected>AdmissionResponse</option><option value="AdmissionOverdue">AdmissionOverdue</option></select></div>
<div class="field"><label for="subscribe-payload">${s.payload}</label><select id="subscribe-payload" name="payload"><option value="full" selected>${s.payloads.full}</option><option value="id-only">${s.payloads['id-only']}</option></select></div>
<button type="submit" class="button">${s.submit}</button>
</form>
${list}
</section>`;
}

function secretSection(view: InspectorView): Html {
  const s = t.secret;
  const error = view.secretForm?.error;
  const masked = (secret: string) => `${secret.slice(0, 'whsec_'.length + 4)}…`;
  return html`<section aria-labelledby="secret-heading"><h2 id="secret-heading">${s.heading}</h2>
<p id="secret-intro">${s.intro}</p>
<form method="post" action="${INSPECTOR_PATH}/secret" class="form">
${csrfField(view.csrfToken)}
<div class="field"><label for="secret">${s.label}</label>${error ? html`<p class="field-error" id="secret-error">${error}</p>` : ''}<input type="text" id="secret" name="secret" autocomplete="off" spellcheck="false" maxlength="200" value="${view.secretForm?.value ?? ''}" aria-describedby="secret-intro${error ? ' secret-error' : ''}"${error ? html` aria-invalid="true"` : ''}></div>
<button type="submit" class="button">${s.submit}</button>
</form>
<h3>${s.known}</h3>
${
  view.secrets.length
    ? html`<ul id="known-secrets">${view.secrets.map((secret) => html`<li data-secret="${secret.label}">${secretName(secret.label)}: <code>${masked(secret.secret)}</code></li>`)}</ul>`
    : html`<p id="known-secrets">${s.none}</p>`
}
</section>`;
}

function failSection(view: InspectorView): Html {
  const f = t.fail;
  const form: FailForm = view.failForm ?? { count: '2', mode: 'status', status: '503', errors: {} };
  const invalid = (message: string | undefined, id: string) => (message ? html` aria-invalid="true" aria-describedby="${id}"` : '');
  return html`<section aria-labelledby="fail-heading"><h2 id="fail-heading">${f.heading}</h2>
<p>${f.intro}</p>
${failState(view.failures)}
<form method="post" action="${INSPECTOR_PATH}/fail" class="form" id="fail-form">
${csrfField(view.csrfToken)}
<div class="field"><label for="fail-count">${f.count}</label>${form.errors.count ? html`<p class="field-error" id="fail-count-error">${form.errors.count}</p>` : ''}<input type="number" id="fail-count" name="count" min="1" max="100" required value="${form.count}"${invalid(form.errors.count, 'fail-count-error')}></div>
<fieldset><legend>${f.mode}</legend>
<div class="choice"><input type="radio" id="fail-mode-status" name="mode" value="status"${form.mode === 'status' ? html` checked` : ''}><label for="fail-mode-status">${f.status}</label></div>
<div class="field"><label for="fail-status">${f.statusCode}</label>${form.errors.status ? html`<p class="field-error" id="fail-status-error">${form.errors.status}</p>` : ''}<input type="number" id="fail-status" name="status" min="400" max="599" value="${form.status}"${invalid(form.errors.status, 'fail-status-error')}></div>
<div class="choice"><input type="radio" id="fail-mode-timeout" name="mode" value="timeout"${form.mode === 'timeout' ? html` checked` : ''}><label for="fail-mode-timeout">${f.timeout}</label></div>
</fieldset>
<button type="submit" class="button">${f.submit}</button>
</form>
${view.failures.left > 0 ? html`<form method="post" action="${INSPECTOR_PATH}/fail/cancel">${csrfField(view.csrfToken)}<button type="submit" class="button button-secondary">${f.cancel}</button></form>` : ''}
</section>`;
}

/** How many deliveries are still to fail, and how: replaced in place by the page's script as they are used up. */
export function failState(failures: { left: number; mode?: FailureMode }): Html {
  const f = t.fail;
  const mode = failures.mode?.kind === 'status' ? f.modeStatus(failures.mode.status) : f.modeTimeout;
  return html`<p id="fail-state" class="fail-state" data-left="${String(failures.left)}">${failures.left > 0 ? f.left(failures.left, mode) : f.noneLeft}</p>`;
}

function deliveriesSection(view: InspectorView): Html {
  const d = t.deliveries;
  const newest = view.deliveries[0]?.id ?? 0;
  return html`<section aria-labelledby="deliveries-heading"><h2 id="deliveries-heading">${d.heading}</h2>
<p>${d.intro(KEPT_DELIVERIES)} <a href="${INSPECTOR_PATH}">${d.reload}</a></p>
<form method="post" action="${INSPECTOR_PATH}/clear">${csrfField(view.csrfToken)}<button type="submit" class="button button-secondary">${d.clear}</button></form>
<p id="delivery-status" class="visually-hidden" role="status" aria-live="polite" data-one="${d.arrivedOne}" data-many="${d.arrivedMany}"></p>
<p id="no-deliveries"${view.deliveries.length ? html` hidden` : ''}>${d.none}</p>
<ol id="delivery-log" class="deliveries" data-updates="${INSPECTOR_PATH}/updates" data-cursor="${String(newest)}" data-kept="${String(KEPT_DELIVERIES)}" data-login="/workspace/login">
${view.deliveries.map((delivery) => deliveryEntry(delivery, view.formats))}
</ol>
</section>`;
}
