import type { TaskHistoryEntry } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import type { FieldChange } from '../request-view';
import type { Texts } from '../texts.de';
import type { VersionEntry } from './task-entries';

type Delivery = Extract<TaskHistoryEntry, { kind: 'documents' }>;

/**
 * A page of the versions the clinic received, newest first, and among them the deliveries of
 * documents in the same span of time (`deliveries`, from the clinic's history of the Task), each
 * where it came: a delivery that reopened the request after "Weitere Daten erforderlich" says so.
 */
export function historyOf(versions: VersionEntry[], texts: Texts, formats: Formats, deliveries: readonly Delivery[] = []): Html {
  const t = texts.task;
  const items: { at: number; markup: Html }[] = [
    ...versions.map((entry) => {
      const when = formats.instant(entry.receivedAt) ?? entry.receivedAt;
      const body = !entry.changes
        ? html`<p>${t.historyFirst}</p>`
        : entry.changes.length === 0
          ? html`<p>${t.historyUnchanged}</p>`
          : html`<p>${t.historyChanged}</p><ul class="changes">${entry.changes.map((change) => changeItem(change, texts))}</ul>`;
      return { at: Date.parse(entry.receivedAt), markup: html`<li data-version="${entry.version}"><h3>${t.versionOf(entry.version, when)}</h3>${body}</li>` };
    }),
    ...deliveries.map((delivery) => ({ at: Date.parse(delivery.at), markup: deliveryItem(delivery, texts, formats) })),
  ];
  // Newest first; at one instant the version above the delivery.
  items.sort((a, b) => b.at - a.at);
  return html`<ol class="history" reversed>${items.map((item) => item.markup)}</ol>`;
}

/**
 * The deliveries of `entries` that belong among a page of versions: after `before` (the version just
 * older than the page's oldest; from the start when none) up to `newest` (the page's newest; no end
 * on the first page), so that each delivery is on exactly one page.
 */
export function deliveriesBetween(entries: readonly TaskHistoryEntry[], before?: { receivedAt: string }, newest?: { receivedAt: string }): Delivery[] {
  return entries.filter(
    (entry): entry is Delivery =>
      entry.kind === 'documents' &&
      (!before || Date.parse(entry.at) > Date.parse(before.receivedAt)) &&
      (!newest || Date.parse(entry.at) <= Date.parse(newest.receivedAt)),
  );
}

function deliveryItem(delivery: Delivery, texts: Texts, formats: Formats): Html {
  const t = texts.timeline;
  const kinds = delivery.kinds?.length ? `: ${delivery.kinds.join(', ')}` : '';
  return html`<li data-kind="documents"${delivery.reopened ? html` data-reopened="true"` : ''}><h3>${t.documentsHeading(formats.instant(delivery.at) ?? delivery.at)}</h3><p>${t.documentsCount(delivery.count)}${kinds}</p>${
    delivery.reopened ? html`<p><strong>${t.documentsReopened}</strong></p>` : ''
  }</li>`;
}

/** One changed field: its label, the old value struck through, the new one after it. */
export function changeItem(change: FieldChange, texts: Texts): Html {
  const t = texts.task;
  return html`<li><strong>${change.label}</strong>: ${change.before !== undefined ? html`<span class="before"><span class="visually-hidden">${t.historyFrom}: </span><del>${joined(change.before)}</del></span> → ` : ''}${change.after !== undefined ? html`<ins>${html`<span class="visually-hidden">${t.historyTo}: </span>`}${joined(change.after)}</ins>` : ''}</li>`;
}

function joined(value: string | string[]): string {
  return Array.isArray(value) ? value.join('; ') : value;
}
