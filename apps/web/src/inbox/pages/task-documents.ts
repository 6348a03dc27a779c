import type { Formats } from '../format';
import { html, type Html } from '../html';
import type { Texts } from '../texts.de';
import type { AttachmentEntry } from './task-entries';

export function attachmentsOf(taskId: string, attachments: AttachmentEntry[], texts: Texts, formats: Formats): Html {
  const t = texts.task;
  if (!attachments.length) return html`<p>${t.noDocuments}</p>`;
  return html`<ul class="documents">${attachments.map((attachment) => {
    const fallback = t.documentName(attachment.document + 1, attachment.index + 1);
    const name = attachment.title ? t.documentOf(attachment.title) : fallback;
    const href = `/inbox/tasks/${taskId}/documents/${attachment.document}/attachments/${attachment.index}`;
    return html`<li><span class="document-name">${attachment.title ?? fallback}</span> <span class="meta">(${kindOf(attachment, texts)}, ${sizeOf(attachment.size)}${attachment.receivedAt ? html`, ${t.documentFrom(formats.instant(attachment.receivedAt) ?? '')}` : ''})</span>
<a href="${href}" target="_blank" rel="noopener" aria-label="${name}: ${t.documentOpen}">${t.documentOpen}</a>
<a href="${href}?download=1" aria-label="${name}: ${t.documentDownload}">${t.documentDownload}</a></li>`;
  })}</ul>`;
}

/** What the document is, for a person: as the referrer named it, else a word for its type (never the MIME type). */
export function kindOf(attachment: Pick<AttachmentEntry, 'kind' | 'contentType'>, texts: Texts): string {
  return attachment.kind ?? texts.task.documentKind[attachment.contentType.toLowerCase().replace(/;.*$/s, '').trim()] ?? texts.task.documentKindOther;
}

export function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
