import type { Formats } from '../format';
import { html, type Html } from '../html';
import type { FieldChange } from '../request-view';
import type { Texts } from '../texts.de';
import type { VersionEntry } from './task-view.page';

export function historyOf(versions: VersionEntry[], texts: Texts, formats: Formats): Html {
  const t = texts.task;
  return html`<ol class="history" reversed>${[...versions].reverse().map((entry) => {
    const when = formats.instant(entry.receivedAt) ?? entry.receivedAt;
    const body = !entry.changes
      ? html`<p>${t.historyFirst}</p>`
      : entry.changes.length === 0
        ? html`<p>${t.historyUnchanged}</p>`
        : html`<p>${t.historyChanged}</p><ul class="changes">${entry.changes.map((change) => changeItem(change, texts))}</ul>`;
    return html`<li data-version="${entry.version}"><h3>${t.versionOf(entry.version, when)}</h3>${body}</li>`;
  })}</ol>`;
}

/** One changed field: its label, the old value struck through, the new one after it. */
export function changeItem(change: FieldChange, texts: Texts): Html {
  const t = texts.task;
  return html`<li><strong>${change.label}</strong>: ${change.before !== undefined ? html`<span class="before"><span class="visually-hidden">${t.historyFrom}: </span><del>${joined(change.before)}</del></span> → ` : ''}${change.after !== undefined ? html`<ins>${html`<span class="visually-hidden">${t.historyTo}: </span>`}${joined(change.after)}</ins>` : ''}</li>`;
}

function joined(value: string | string[]): string {
  return Array.isArray(value) ? value.join('; ') : value;
}
