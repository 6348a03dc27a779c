import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { HttpError } from '@bedrequest/http';

/** The file fields of the form ("Dokument 1" … "Dokument 5"); a DocumentBundle holds up to 20 (DOCUMENTS_PER_BUNDLE). */
export const UPLOAD_ROWS = 5;

/** What the documents may be, told by their first bytes, never by their names or the browser's word. */
export type DocumentType = 'application/pdf' | 'image/png' | 'image/jpeg';

const SIGNATURES: readonly [DocumentType, Buffer][] = [
  // ISO 32000-1, 7.5.2: the header line "%PDF-1.n".
  ['application/pdf', Buffer.from('%PDF-', 'latin1')],
  // PNG (ISO/IEC 15948), 5.2: the eight signature bytes.
  ['image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  // JPEG (ITU T.81), B.1.1.2: SOI, then the next marker's 0xFF.
  ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff])],
];

export function documentTypeOf(content: Buffer): DocumentType | undefined {
  return SIGNATURES.find(([, signature]) => content.subarray(0, signature.length).equals(signature))?.[0];
}

export interface UploadLimits {
  /** The bytes of one file, and of all together. */
  fileBytes: number;
  totalBytes: number;
  /** The characters of a document's kind. */
  kindLength: number;
}

/** Why a file was not taken: not one of the types, over its own limit, over the limit of all together. */
export type FileRefusal = 'type' | 'size' | 'total';

export interface Upload {
  /** By row, from 1: the kinds typed and the files taken. */
  kinds: ReadonlyMap<number, string>;
  files: ReadonlyMap<number, { contentType: DocumentType; content: Buffer }>;
  refused: ReadonlyMap<number, FileRefusal>;
  /** Rows whose kind was longer than `kindLength`. */
  longKinds: ReadonlySet<number>;
  /** False when the form did not arrive whole (more parts than it has): nothing is taken. */
  complete: boolean;
  /** The form's CSRF token (`_csrf`), which the route checks before acting. */
  csrfToken?: string;
}

/**
 * Reads the form as it streams in, with busboy's limits on every part, so that the work stays bounded
 * whatever is sent: a file over its limit, or past the limit of all together, is counted and dropped
 * as it arrives, never held; past twice the limit of all together the request is cut off.
 * A file's name is never read.
 */
export function readUpload(req: IncomingMessage, limits: UploadLimits): Promise<Upload> {
  const kinds = new Map<number, string>();
  const files = new Map<number, { contentType: DocumentType; content: Buffer }>();
  const refused = new Map<number, FileRefusal>();
  const longKinds = new Set<number>();
  let csrfToken: string | undefined;
  const done = (complete: boolean): Upload => ({ kinds, files, refused, longKinds, complete, ...(csrfToken ? { csrfToken } : {}) });
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) return Promise.resolve(done(false));

  return new Promise((resolve, reject) => {
    let complete = true;
    let total = 0;
    const parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        // busboy reports the limit on the byte that reaches it: a file of the limit exactly is taken.
        fileSize: limits.fileBytes + 1,
        files: UPLOAD_ROWS,
        fields: UPLOAD_ROWS + 1,
        // The token, a kind and a file per row; busboy reports the limit on the part that reaches it, so one more.
        parts: 2 * UPLOAD_ROWS + 2,
        // A kind's characters take up to four bytes each.
        fieldSize: 4 * limits.kindLength + 1,
        fieldNameSize: 32,
        headerPairs: 10,
      },
    });
    let received = 0;
    const cutOff = 2 * limits.totalBytes;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= cutOff) return;
      req.off('data', count);
      req.unpipe(parser);
      req.destroy();
      reject(new HttpError('payload_too_large', `the upload is larger than ${cutOff} bytes`));
    };
    req.on('data', count);

    parser.on('field', (name, value, info) => {
      if (name === '_csrf') csrfToken = value;
      const row = rowOf(name, 'kind');
      if (!row) return;
      if (info.valueTruncated || [...value].length > limits.kindLength) longKinds.add(row);
      kinds.set(row, value);
    });
    parser.on('file', (name, stream) => {
      const row = rowOf(name, 'file');
      if (!row || files.has(row) || refused.has(row)) return void stream.resume();
      const chunks: Buffer[] = [];
      let size = 0;
      let over: FileRefusal | undefined;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (over) return;
        if (total + size > limits.totalBytes) {
          over = 'total';
          chunks.length = 0;
        } else chunks.push(chunk);
      });
      stream.on('limit', () => {
        over = 'size';
        chunks.length = 0;
      });
      stream.on('end', () => {
        // A row without a file chosen arrives as an empty part.
        if (size === 0 && !over) return;
        const content = over ? undefined : Buffer.concat(chunks, size);
        const contentType = content && documentTypeOf(content);
        if (!content || !contentType) return void refused.set(row, over ?? 'type');
        total += size;
        files.set(row, { contentType, content });
      });
    });
    const incomplete = () => {
      complete = false;
    };
    parser.on('partsLimit', incomplete).on('filesLimit', incomplete).on('fieldsLimit', incomplete);
    parser.on('error', () => {
      req.unpipe(parser);
      req.resume();
      reject(new HttpError('invalid_request', 'the form is not a well-formed multipart body'));
    });
    parser.on('close', () => {
      req.off('data', count);
      resolve(done(complete));
    });
    req.pipe(parser);
  });
}

/** The row of a field named `<prefix>-<n>`, 1 ≤ n ≤ UPLOAD_ROWS. */
function rowOf(name: string, prefix: 'kind' | 'file'): number | undefined {
  const match = new RegExp(`^${prefix}-([1-9][0-9]?)$`).exec(name);
  const row = match ? Number(match[1]) : 0;
  return row >= 1 && row <= UPLOAD_ROWS ? row : undefined;
}
