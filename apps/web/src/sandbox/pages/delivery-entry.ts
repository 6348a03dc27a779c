import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { inspectorTexts as t } from '../inspector.texts.de';
import { MAX_BODY_BYTES, type RecordedDelivery } from '../receiver-store';
import type { SignatureCheck } from '../signature-check';

/**
 * One recorded delivery as a list item: a summary line (when, the signature check, the answer, the
 * event), expandable without script (`details`) to the check's explanation, every header and the
 * body, pretty-printed when it is JSON, otherwise as received.
 */
export function deliveryEntry(delivery: RecordedDelivery, formats: Formats): Html {
  const event = eventOf(delivery.body);
  const answer = delivery.answer.kind === 'timeout' ? t.deliveries.heldBack : t.deliveries.answered(delivery.answer.status);
  return html`<li class="delivery${delivery.failedOnPurpose ? ' failed-on-purpose' : ''}" id="delivery-${String(delivery.id)}" data-delivery-id="${String(delivery.id)}" data-check="${delivery.check.state}">
<details>
<summary><time datetime="${delivery.receivedAt}">${formats.instant(delivery.receivedAt) ?? delivery.receivedAt}</time>
<span class="check check-${delivery.check.state}">${t.checks[delivery.check.state]}</span>
<span class="answer">${answer}</span>${delivery.failedOnPurpose ? html` <strong class="on-purpose">${t.deliveries.onPurpose}</strong>` : ''}
<span class="event">${event ?? t.deliveries.unknownEvent}</span></summary>
<h3>${t.deliveries.check}</h3>
<p class="check-detail">${checkDetail(delivery.check)}</p>
<h3>${t.deliveries.headers}</h3>
<dl class="delivery-headers">${delivery.headers.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}</dl>
<h3>${t.deliveries.body} <span class="meta">(${t.deliveries.bytes(delivery.bodyBytes)})</span></h3>
${
  delivery.body === undefined
    ? html`<p>${t.deliveries.tooLarge(MAX_BODY_BYTES)}</p>`
    : html`<pre class="delivery-body">${delivery.body === '' ? t.deliveries.emptyBody : pretty(delivery.body)}</pre>`
}
</details>
</li>`;
}

export function checkDetail(check: SignatureCheck): string {
  switch (check.state) {
    case 'valid':
      return t.checkDetails.valid(secretName(check.secretLabel));
    case 'stale':
      return check.signatureMatches && check.secretLabel ? t.checkDetails.staleMatching(secretName(check.secretLabel)) : t.checkDetails.staleOther;
    case 'invalid':
      return check.reason === 'missing-headers' ? t.checkDetails.missingHeaders : t.checkDetails.noMatch;
    case 'no-secret':
      return t.checkDetails.noSecret;
    case 'not-checked':
      return t.checkDetails.notChecked;
  }
}

/** How a secret is named on the page: the subscription's event type, or "eingegeben". */
export function secretName(label: string): string {
  return label === 'entered' ? t.secret.entered : t.secret.ofSubscription(label);
}

/** "AdmissionResponse #3 (event id)" from a webhook body; undefined for a body that is not one. */
function eventOf(body: string | undefined): string | undefined {
  const parsed = jsonOf(body);
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { type, sequence, id } = parsed as Record<string, unknown>;
  if (typeof type !== 'string') return undefined;
  return `${type}${typeof sequence === 'number' ? ` #${sequence}` : ''}${typeof id === 'string' ? ` (${id})` : ''}`;
}

function pretty(body: string): string {
  const parsed = jsonOf(body);
  return parsed === undefined ? body : JSON.stringify(parsed, null, 2);
}

function jsonOf(body: string | undefined): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
