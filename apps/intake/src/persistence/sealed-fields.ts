import { openDataKeyring, type DataKeyConfig, type DataKeyring, type SqlClient, type UnavailableDataKey } from '@bedrequest/crypto';
import type { IntakeDatabase } from './database';

/**
 * What each sealed value is sealed for: its table, column and primary key (the additional data of
 * AES-GCM), so that a value copied to another row does not open there.
 */
export const sealedFor = {
  bundle: (requestId: string, version: number) => `request_version:bundle:${requestId}:${version}`,
  summary: (requestId: string, version: number) => `request_version:summary:${requestId}:${version}`,
  document: (documentId: string) => `request_document:bundle:${documentId}`,
  notes: (taskId: string) => `clinic_task:notes:${taskId}`,
  history: (taskId: string) => `clinic_task:history:${taskId}`,
  verdict: (messageId: string) => `inbox_message:verdict:${messageId}`,
  internalNote: (noteId: string) => `clinic_internal_note:note:${noteId}`,
  caseNumber: (id: string) => `referrer_case_number:case_number:${id}`,
  draftLabel: (draftId: string) => `referrer_draft:label:${draftId}`,
  draftContent: (draftId: string) => `referrer_draft:content:${draftId}`,
  recordSigningKey: (id: string) => `record_signing_key:private_key:${id}`,
  readyForTransfer: (id: string) => `referrer_ready_for_transfer:ready:${id}`,
};

/**
 * How intake stores what describes the patient (docs/data-protection.md): bundle versions, their
 * list summaries, documents, the clinic's notes and the verdicts kept for redeliveries, each sealed
 * with the service's data keys for its own row. Identifiers, IKs, states, dates and versions stay in
 * clear: the statements search, join and order by them; so do the hashes that recognise a bundle
 * sent again, which are keyed (the keyring's fingerprint key, requests/bundle-fingerprint.ts).
 */
export class SealedFields {
  constructor(readonly keyring: DataKeyring) {}

  seal(context: string, value: unknown): Buffer<ArrayBuffer> {
    return this.keyring.sealJson(value, context);
  }

  /** The value a row holds sealed for `context`, opened. */
  async open<T>(context: string, sealed: Uint8Array): Promise<T> {
    return this.keyring.openJson<T>(sealed, context);
  }
}

/**
 * A bytea column as json_agg writes it (`\x` and hex digits): the raw statements that read whole
 * batches as JSON get their sealed values this way.
 */
export function byteaOfJson(value: string | null): Buffer | null {
  return value === null ? null : Buffer.from(value.slice(2), 'hex');
}

/** Raw statements through intake's Prisma client, for the key tables of @bedrequest/crypto. */
export function sqlClientOf(prisma: IntakeDatabase): SqlClient {
  return { query: <Row>(sql: string, values: unknown[]) => prisma.$queryRawUnsafe<Row[]>(sql, ...values) };
}

/**
 * Intake's data keys in its schema, with the KEKs of `config` (or the development KEK), and its
 * fingerprint key (made on the first start): without it intake would recognise no retransmission,
 * so it does not start when the fingerprint key's KEK is not configured.
 */
export async function openSealedFields(
  config: DataKeyConfig & { INTAKE_DB_SCHEMA: string },
  prisma: IntakeDatabase,
  onRefreshFailed?: (error: unknown) => void,
): Promise<{ fields: SealedFields; development: boolean; unavailable: UnavailableDataKey[] }> {
  const { keyring, development, unavailable } = await openDataKeyring(config, {
    sql: sqlClientOf(prisma),
    schema: config.INTAKE_DB_SCHEMA,
    ...(onRefreshFailed ? { onRefreshFailed } : {}),
  });
  await keyring.fingerprintKey();
  return { fields: new SealedFields(keyring), development, unavailable };
}
