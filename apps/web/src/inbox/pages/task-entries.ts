import type { FieldChange, RequestView } from '../request-view';

/** A version of the request as the page shows it, and a document's attachment: what the request page's parts share. */
export interface VersionEntry {
  version: number;
  receivedAt: string;
  view: RequestView;
  /** What changed against the version shown before; undefined for the first shown. */
  changes?: FieldChange[];
}

export interface AttachmentEntry {
  /** Its document's position among the request's documents, from 0. */
  document: number;
  /** Its position among that document's attachments, from 0. */
  index: number;
  title?: string;
  contentType: string;
  /** As the referrer named it (DocumentReference type or category). */
  kind?: string;
  size: number;
  receivedAt?: string;
}
