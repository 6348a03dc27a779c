import { z } from 'zod';
import { HttpError } from '@bedrequest/http';
import { personOf, taskAccess, type Caller } from '../access';
import type { AuditTrail } from '../audit';
import { patientOf, recordEventsOf, type PayerRecord } from './payer-record';
import type { PayerRecordRepository } from './payer-record.repository';
import { recordCsv, recordPdf } from './record-formats';
import { signRecord, verifyRecord, type RecordKind, type RecordVerification } from './record-signature';
import type { RecordSigningKeys } from './record-signing-keys';

/** `PUT /api/v1/referrer/ready-for-transfer`: when the patient was ready for transfer, or null to remove it. */
export const ReadyForTransferInput = z.strictObject({
  identifier: z.string().min(1).max(1024),
  readyAt: z.iso.datetime({ offset: true }).nullable(),
});
export type ReadyForTransferInput = z.infer<typeof ReadyForTransferInput>;

export interface SignedRecord {
  file: Buffer;
  kind: RecordKind;
  /** A file name without patient data: the record's kind and the day it was made. */
  fileName: string;
}

/**
 * The record for the payer (docs/api.md, "The record for the payer"): made for the request's own
 * party only (any other caller: not found, as the access policy answers for a Task it may not
 * see), never after the request's patient data was erased (410), signed with the service's current
 * record key, and its download recorded in the audit trail like a read of the request, as it
 * carries whose stay it is.
 */
export class PayerRecordService {
  constructor(
    private readonly records: PayerRecordRepository,
    private readonly keys: RecordSigningKeys,
    private readonly audit: Pick<AuditTrail, 'record'>,
    private readonly clock: { now(): Date } = { now: () => new Date() },
  ) {}

  /** The signed record of the request of the Task `taskId` (any of its Tasks), as `kind`. */
  async record(taskId: string, kind: RecordKind, caller: Caller): Promise<SignedRecord> {
    const notFound = new HttpError('not_found', 'no such request');
    if (!z.guid().safeParse(taskId).success) throw notFound;
    const request = await this.records.requestOfTask(taskId);
    if (!request || caller.viewer.role !== 'referrer' || !taskAccess.allows(caller.viewer, request)) throw notFound;
    if (request.erasedAt) throw new HttpError('gone', 'the patient data of this request was erased: no record can be made');
    const now = this.clock.now();
    const [sources, bundle, signer] = await Promise.all([this.records.sourcesOf(request), this.records.latestBundle(request), this.keys.signer(now)]);
    const record: PayerRecord = {
      request: request.identifier,
      referrerIk: request.referrerIk,
      patient: patientOf(bundle),
      madeAt: now.toISOString(),
      events: recordEventsOf(sources),
    };
    const content = kind === 'pdf' ? await recordPdf(record) : recordCsv(record);
    const file = signRecord(content, signer, { request: request.identifier, kind, signedAt: now });
    await this.audit.record([
      {
        interaction: 'read',
        agent: { kind: 'referrer', ...personOf(caller), ik: request.referrerIk },
        request: { identifier: request.identifier, ownerPartyId: request.referrerPartyId },
        resources: [{ type: 'Task', id: taskId }],
        source: 'intake',
      },
    ]);
    return { file, kind, fileName: `nachweis-kostentraeger-${now.toISOString().slice(0, 10)}.${kind}` };
  }

  /** Whether `file` carries a valid signature of the service, and what it signed. */
  async verify(file: Buffer): Promise<RecordVerification> {
    return verifyRecord(file, await this.keys.publicKeys());
  }

  /** Sets or removes when the patient of the party's request was ready for transfer. */
  async setReadyForTransfer(input: ReadyForTransferInput, caller: Caller): Promise<{ identifier: string; readyAt: string | null }> {
    if (caller.viewer.role !== 'referrer') throw new HttpError('forbidden', 'a clinic token may not use this endpoint');
    const { partyId } = caller.viewer;
    const state = await this.records.requestState(partyId, input.identifier);
    if (state === 'none') throw new HttpError('not_found', 'no such request');
    if (state === 'erased') throw new HttpError('gone', 'the patient data of this request was erased');
    if (input.readyAt === null) {
      await this.records.removeReadyForTransfer(partyId, input.identifier);
      return { identifier: input.identifier, readyAt: null };
    }
    const readyAt = new Date(input.readyAt);
    const person = { user: caller.user, ...(caller.userName ? { name: caller.userName } : {}) };
    await this.records.setReadyForTransfer(partyId, input.identifier, { readyAt, ...person }, this.clock.now());
    return { identifier: input.identifier, readyAt: readyAt.toISOString() };
  }

  /** When the patient of the party's request was ready for transfer, if the hospital said so. */
  async readyForTransfer(identifier: string, caller: Caller): Promise<{ identifier: string; readyAt: string | null }> {
    if (caller.viewer.role !== 'referrer') throw new HttpError('forbidden', 'a clinic token may not use this endpoint');
    const ready = await this.records.readyForTransfer(caller.viewer.partyId, identifier);
    return { identifier, readyAt: ready ? ready.readyAt.toISOString() : null };
  }
}
