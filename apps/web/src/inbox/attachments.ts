import type { Response } from 'express';
import { list, record, text, type Json } from './json-reading';

/** One attachment of a DocumentBundle (a DocumentReference's `content[].attachment`). */
export interface Attachment {
  title?: string;
  contentType: string;
  /** base64, as sent. */
  data: string;
  /** Decoded size in bytes. */
  size: number;
  /** The DocumentBundle's `timestamp`. */
  date?: string;
  /** What the document is, as its DocumentReference names it (`type`, else `category`: "Arztbrief"). */
  kind?: string;
}

/**
 * The attachments of one DocumentBundle in a fixed order (entry order, then content order; those
 * without data left out): an attachment's position in this list is, with its document's position
 * among the request's documents, its address in the inbox's URLs
 * (`/inbox/tasks/{taskId}/documents/{n}/attachments/{k}`), so that a download reads that one
 * document alone.
 */
export function attachmentsOf(documentBundle: unknown): Attachment[] {
  const date = text(record(documentBundle)?.timestamp);
  return list(record(documentBundle)?.entry)
    .map((entry) => record(record(entry)?.resource))
    .filter((resource): resource is Json => resource?.resourceType === 'DocumentReference')
    .flatMap((reference) => {
      const kind = kindOf(reference.type) ?? list(reference.category).map(kindOf).find(Boolean);
      return list(reference.content).map((content) => ({ attachment: record(record(content)?.attachment), kind }));
    })
    .flatMap(({ attachment, kind }) => {
      const data = text(attachment?.data);
      if (!attachment || !data) return [];
      const title = text(attachment.title);
      return [
        {
          contentType: text(attachment.contentType) ?? 'application/octet-stream',
          data,
          size: decodedSize(data),
          ...(title ? { title } : {}),
          ...(date ? { date } : {}),
          ...(kind ? { kind } : {}),
        },
      ];
    });
}

/** A CodeableConcept's words: its text, else its first coding's display. */
function kindOf(concept: unknown): string | undefined {
  return (
    text(record(concept)?.text) ??
    list(record(concept)?.coding)
      .map((coding) => text(record(coding)?.display))
      .find(Boolean)
  );
}

/** base64: 3 bytes per 4 characters, less the padding. */
function decodedSize(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** Types a browser may show inline without running anything of the document's; the rest is downloaded. */
const INLINE_TYPES = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'text/plain']);

/**
 * What is not shown inline goes out as application/octet-stream, whatever type the sender named: a
 * browser that opens a download itself (or ignores the disposition) then has no type to render it
 * by, an HTML or SVG document of a sender included (docs/inbox.md, "Dokumente").
 */
export function sendAttachment(res: Response, attachment: Attachment, download: boolean, fallbackName: string): void {
  const named = attachment.contentType.toLowerCase();
  const inline = !download && INLINE_TYPES.has(named);
  const contentType = inline ? named : 'application/octet-stream';
  res.attachment(attachment.title ?? fallbackName);
  if (inline) res.set('content-disposition', String(res.get('content-disposition')).replace(/^attachment/, 'inline'));
  res
    .status(200)
    .set({
      'content-type': contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType,
      'x-content-type-options': 'nosniff',
      // A document runs nothing: no script, no plugin, no form; a PDF viewer keeps its own sandbox.
      'content-security-policy':
        contentType === 'application/pdf'
          ? "default-src 'none'; frame-ancestors 'none'"
          : "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox",
    })
    .send(Buffer.from(attachment.data, 'base64'));
}
