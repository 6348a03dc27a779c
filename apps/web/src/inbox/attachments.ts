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
