// The record for the payer (docs/api.md, "The record for the payer"): the hospital's download, its
// ready-for-transfer time, and the verification anyone may call without a token.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ADDRESS_LIMITED, guarded, header, json, jsonBodyRefusals, merged, NO_TOKEN, refusals, UNDECODABLE_PATH, type Secured } from './responses';

const ReadyForTransferInput = z.strictObject({
  identifier: z.string().min(1).max(1024).describe("The request's ServiceRequest identifier URI"),
  readyAt: z.iso.datetime({ offset: true }).nullable().describe('When the patient was ready for transfer (ISO 8601 with offset); null removes it'),
});
const ReadyForTransferView = z.object({ identifier: z.string(), readyAt: z.string().nullable().describe('UTC ISO 8601, or null when none was recorded') });
const RecordVerification = z.union([
  z.object({
    valid: z.literal(true),
    alg: z.literal('EdDSA'),
    kid: z.string().describe("The key's RFC 7638 thumbprint"),
    signedAt: z.string().describe('When the service signed it, UTC ISO 8601'),
    request: z.string().describe("The request's identifier"),
    kind: z.enum(['pdf', 'csv']),
    sha256: z.string().describe('Hex SHA-256 of every byte before the signature line'),
  }),
  z.object({
    valid: z.literal(false),
    reason: z.enum(['missing-signature', 'malformed-signature', 'unknown-key', 'bad-signature', 'changed']),
    message: z.string(),
    kid: z.string().optional(),
  }),
]);
const RecordJwks = z.object({
  keys: z.array(z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') })),
});

export function registerPayerRecordPaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base = merged(guarded('referrer'), { 503: 'the record service is unavailable' });
  const noStore = { 'Cache-Control': header('NoStore') };
  registry.registerPath({
    method: 'get',
    path: '/api/v1/referrer/records/{taskId}',
    operationId: 'readPayerRecord',
    summary: 'The signed record for the payer of the request of this Task, as PDF or CSV (referrer tokens only)',
    description:
      'Every step with its time in UTC ISO 8601: versions, each clinic asked (by whom or by which rule), answers with code and note, deadlines, overdue marks, the selection and its withdrawal, ready for transfer. Signed by the service in its last line; check it at POST /api/v1/records/verify.',
    security: secured,
    request: {
      params: z.object({ taskId: z.uuid().describe('The id of any Task of the request, as the workspace addresses a request') }),
      query: z.strictObject({ format: z.enum(['pdf', 'csv']) }),
    },
    responses: {
      200: {
        description: 'The record, as an attachment',
        headers: { 'Cache-Control': header('NoStore') },
        content: {
          'application/pdf': { schema: z.string().describe('PDF') },
          'text/csv': { schema: z.string().describe('RFC 4180 CSV, UTF-8, `#` comment lines') },
        },
      },
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, {
          400: '`format` missing or not pdf or csv, or another parameter',
          404: "No Task of the caller's party with this id (also an id that is not a UUID)",
          410: "The request's patient data was erased: no record can be made",
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/referrer/ready-for-transfer',
    operationId: 'setReadyForTransfer',
    summary: 'Records when the patient of a request was ready for transfer, or removes it with `null` (referrer tokens only)',
    description:
      "Kept with the hospital's own data, sealed, never sent to a clinic; listed in the record for the payer and erased with the request's patient data.",
    security: secured,
    request: { body: { required: true, content: json(ReadyForTransferInput) } },
    responses: {
      200: { description: 'As stored', headers: noStore, content: json(ReadyForTransferView) },
      ...refusals(
        'v1',
        merged(base, jsonBodyRefusals('8 KiB'), {
          400: 'identifier missing or over 1024 characters; readyAt missing or not ISO 8601 with offset; another field',
          404: "No request of the caller's party with this identifier",
          410: "The request's patient data was erased",
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/referrer/ready-for-transfer/_read',
    operationId: 'readReadyForTransfer',
    summary: 'When the patient of a request was ready for transfer, if the hospital recorded it (referrer tokens only)',
    description: 'A POST, so that no identifier stands in a URL.',
    security: secured,
    request: { body: { required: true, content: json(z.strictObject({ identifier: z.string().min(1).max(1024) })) } },
    responses: {
      200: { description: 'The time, or null', headers: noStore, content: json(ReadyForTransferView) },
      ...refusals('v1', merged(base, jsonBodyRefusals('8 KiB'), { 400: 'identifier missing or over 1024 characters; another field' })),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/records/verify',
    operationId: 'verifyPayerRecord',
    summary: 'Checks the signature of a record for the payer, without a token',
    security: NO_TOKEN,
    description: 'The file as the body, any content type. Answers what was signed (the request, the kind, the SHA-256), when and with which key, or why not.',
    request: { body: { required: true, content: { 'application/octet-stream': { schema: z.string().describe('The PDF or CSV file') } } } },
    responses: {
      200: { description: 'Valid, or the reason it is not', headers: noStore, content: json(RecordVerification) },
      ...refusals('v1', merged(ADDRESS_LIMITED, { 413: 'The file is larger than 10 MiB', 503: 'the record service is unavailable' })),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/records/jwks',
    operationId: 'readRecordSigningKeys',
    summary: "The public keys that verify the service's records, newest first, without a token",
    security: NO_TOKEN,
    responses: {
      200: { description: 'A JWKS of Ed25519 keys', headers: noStore, content: json(RecordJwks) },
      ...refusals('v1', merged(ADDRESS_LIMITED, { 503: 'the record service is unavailable' })),
    },
  });
}
