import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** The two formats of the record (docs/api.md, "The record for the payer"). */
export type RecordKind = 'pdf' | 'csv';

/** What a record's signature line says was signed: base64url JSON before the signature's dot. */
export interface RecordSignatureHeader {
  alg: 'EdDSA';
  kid: string;
  /** When the service signed it, UTC ISO 8601. */
  signedAt: string;
  /** The request's identifier (the referrer's ServiceRequest identifier URI, no patient data). */
  request: string;
  kind: RecordKind;
  /** SHA-256 (hex) of every byte before the signature line. */
  sha256: string;
}

/**
 * The signature line's start: after the PDF's `%%EOF` a PDF comment (readers ignore what follows
 * the last `%%EOF`), in the CSV a comment line (read the CSV with comment character `#`).
 */
export const SIGNATURE_PREFIX: Record<RecordKind, string> = { pdf: '%bedrequest-signature ', csv: '# bedrequest-signature ' };

/**
 * What the Ed25519 signature covers: this domain tag and the encoded header, which holds the
 * SHA-256 of all bytes before the signature line, so that one signature covers both and a
 * signature of the service over something else never reads as a record's.
 */
const SIGNED_TAG = 'bedrequest-record-v1.';

export interface RecordSigner {
  kid: string;
  privateKey: KeyObject;
}

/** `content` with its signature line appended: one file carries the record and its signature. */
export function signRecord(record: Buffer, signer: RecordSigner, what: { request: string; kind: RecordKind; signedAt: Date }): Buffer {
  // The signature line starts a line of its own; the newline before it is signed content.
  const content = record.length === 0 || record[record.length - 1] === 0x0a ? record : Buffer.concat([record, Buffer.from('\n')]);
  const header: RecordSignatureHeader = {
    alg: 'EdDSA',
    kid: signer.kid,
    signedAt: what.signedAt.toISOString(),
    request: what.request,
    kind: what.kind,
    sha256: createHash('sha256').update(content).digest('hex'),
  };
  const encoded = Buffer.from(JSON.stringify(header)).toString('base64url');
  const signature = sign(null, Buffer.from(SIGNED_TAG + encoded), signer.privateKey).toString('base64url');
  return Buffer.concat([content, Buffer.from(`${SIGNATURE_PREFIX[what.kind]}${encoded}.${signature}\n`)]);
}

/** Why a file is not a record the service signed, said in a sentence (verify's answer). */
export type RecordRefusal =
  | { valid: false; reason: 'missing-signature'; message: string }
  | { valid: false; reason: 'malformed-signature'; message: string }
  | { valid: false; reason: 'unknown-key'; message: string; kid: string }
  | { valid: false; reason: 'changed'; message: string; kid: string }
  | { valid: false; reason: 'bad-signature'; message: string; kid: string };

export type RecordVerification = ({ valid: true } & RecordSignatureHeader) | RecordRefusal;

/** The public keys that verify, by kid: the Ed25519 `x` of each (base64url), as the JWKS serves them. */
export type RecordPublicKeys = ReadonlyMap<string, string>;

/** Checks a file's signature line against `keys`: what was signed, when and with which key, or why not. */
export function verifyRecord(file: Buffer, keys: RecordPublicKeys): RecordVerification {
  const found = signatureLineOf(file);
  if (!found) {
    return { valid: false, reason: 'missing-signature', message: 'the file has no bedrequest signature line at its end' };
  }
  const { content, encoded, signature } = found;
  let header: RecordSignatureHeader;
  try {
    header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as RecordSignatureHeader;
  } catch {
    return { valid: false, reason: 'malformed-signature', message: "the signature line's header is not base64url JSON" };
  }
  if (header?.alg !== 'EdDSA' || typeof header.kid !== 'string' || typeof header.sha256 !== 'string' || typeof header.signedAt !== 'string') {
    return { valid: false, reason: 'malformed-signature', message: "the signature line's header is not one the service writes" };
  }
  const x = keys.get(header.kid);
  if (x === undefined) {
    return {
      valid: false,
      reason: 'unknown-key',
      kid: header.kid,
      message: `the record was signed with the key ${header.kid}, which is not one of the service's`,
    };
  }
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  if (!verify(null, Buffer.from(SIGNED_TAG + encoded), publicKey, Buffer.from(signature, 'base64url'))) {
    return { valid: false, reason: 'bad-signature', kid: header.kid, message: 'the signature does not match its header: the signature line was changed' };
  }
  if (createHash('sha256').update(content).digest('hex') !== header.sha256) {
    return {
      valid: false,
      reason: 'changed',
      kid: header.kid,
      message: 'the file was changed after it was signed: its content does not match the signed SHA-256',
    };
  }
  return { valid: true, ...header };
}

/** The last line, if it is a signature line: what precedes it, its header and its signature (both base64url). */
function signatureLineOf(file: Buffer): { content: Buffer; encoded: string; signature: string } | undefined {
  const end = file.length > 0 && file[file.length - 1] === 0x0a ? file.length - 1 : file.length;
  const start = file.lastIndexOf(0x0a, end - 1) + 1;
  const line = file.subarray(start, end).toString('latin1');
  const prefix = Object.values(SIGNATURE_PREFIX).find((candidate) => line.startsWith(candidate));
  if (!prefix) return undefined;
  const [encoded, signature, ...rest] = line.slice(prefix.length).split('.');
  if (!encoded || !signature || rest.length > 0 || !/^[A-Za-z0-9_-]+$/.test(encoded + signature)) return undefined;
  return { content: file.subarray(0, start), encoded, signature };
}
