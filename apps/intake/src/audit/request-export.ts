import { sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import { AuditTrailRepository } from './audit-trail.repository';
import { entriesOf } from './audit-trail.service';

/** A request's latest bundle version as an administrator exports it. */
export interface ExportedRequest {
  version: number;
  bundle: unknown;
}

/**
 * `npm run admin -- request export`: an administrator's read of a request's patient data, recorded
 * in the audit trail in the same transaction as the read (an export whose entry cannot be written
 * reads nothing).
 */
export class RequestExport {
  constructor(
    private readonly prisma: IntakeDatabase,
    private readonly schema: string,
    private readonly fields: SealedFields,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The latest version of the request `identifier` names; undefined for an identifier intake does not know. */
  async latestBundle(identifier: string, administrator: string): Promise<ExportedRequest | undefined> {
    return this.prisma.$transaction(async (tx) => {
      const request = await tx.admissionRequest.findUnique({ where: { identifier }, select: { id: true, referrerPartyId: true, currentVersion: true } });
      if (!request) return undefined;
      const version = await tx.requestVersion.findUnique({
        where: { requestId_version: { requestId: request.id, version: request.currentVersion } },
        select: { sealedBundle: true },
      });
      if (!version) return undefined;
      const audit = new AuditTrailRepository({ rows: (statement) => tx.$queryRaw(statement) }, this.schema);
      await audit.appendEntries(
        entriesOf(
          [
            {
              interaction: 'vread',
              agent: { kind: 'administrator', user: administrator },
              request: { identifier, ownerPartyId: request.referrerPartyId, version: request.currentVersion },
              source: 'intake admin CLI',
            },
          ],
          this.now(),
        ),
      );
      const bundle = await this.fields.open(sealedFor.bundle(request.id, request.currentVersion), version.sealedBundle);
      return { version: request.currentVersion, bundle };
    });
  }
}
