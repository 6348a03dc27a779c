import type { Bundle, BundleEntry, Resource, ServiceRequest } from '@medplum/fhirtypes';
import { URI_IDENTIFIER_SYSTEM } from '@bedrequest/fhir-model';
import { ownsRequest, personOf, type Caller } from '../access';
import type { AuditTrail } from '../audit';
import type { PrismaClient } from '../generated/prisma/client';
import { sealedFor, type SealedFields } from '../persistence';
import { quoted, readQuery, refusal, type ParameterHandler, type QueryRefusal } from '../search';

/** What a referrer's read of its request finds: the searchset, or the erasure that left only its tombstone. */
export type RequestRead = { outcome: 'found'; bundle: Bundle } | { outcome: 'erased'; erasedAt: Date };

/** The parameters of `GET /api/v2/fhir/ServiceRequest` (docs/api.md, "Reading a request back"). */
interface RequestSearch {
  identifier?: string;
}

/**
 * `identifier`: the ServiceRequest identifier URI as the erasure takes it, or in FHIR's token form
 * `urn:ietf:rfc:3986|<uri>` (the one system of ServiceRequest.identifier). Checked as the bundle
 * validation checks the identifier it stores (an absolute URI of at most 2,048 printable ASCII
 * characters), so that a value no request can have is a 400 rather than an empty searchset.
 */
const IDENTIFIER: ParameterHandler<RequestSearch> = {
  parse: (parameter, search) => {
    const value = parameter.single();
    const uri = value.startsWith(`${URI_IDENTIFIER_SYSTEM}|`) ? value.slice(URI_IDENTIFIER_SYSTEM.length + 1) : value;
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:[\x21-\x7e]+$/.test(uri) || uri.length > 2048) {
      parameter.invalid(`${quoted(value)} is not a ServiceRequest identifier: expected an absolute URI of at most 2048 printable ASCII characters`);
    }
    search.identifier = uri;
  },
};

/**
 * The referrer's read of what it sent: the latest AdmissionRequestBundle version of one of its
 * requests, found by the ServiceRequest identifier, as a FHIR searchset. Another party's request is
 * not told apart from an unknown one (an empty searchset, as the Task search answers); the access
 * policy decides whose it is (`ownsRequest`). A read that answers patient data is recorded in the
 * audit trail before it is answered.
 */
export class RequestReadService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly fields: SealedFields,
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  async search(query: Record<string, unknown>, caller: Caller, links: { base: string; path: string }): Promise<RequestRead | QueryRefusal> {
    const search: RequestSearch = {};
    const refused = readQuery(query, (name) => (name === 'identifier' ? IDENTIFIER : undefined), search, 'identifier, _format');
    if (refused) return refused;
    if (search.identifier === undefined) {
      return refusal([{ code: 'required', diagnostics: 'identifier: required (the ServiceRequest identifier URI)', expression: 'identifier' }]);
    }
    const self = `${links.base}${links.path}?identifier=${encodeURIComponent(search.identifier)}`;
    const request = await this.prisma.admissionRequest.findUnique({
      where: { identifier: search.identifier },
      select: { id: true, referrerPartyId: true, referrerIk: true, status: true, currentVersion: true, erasure: { select: { erasedAt: true } } },
    });
    if (!request || caller.viewer.role !== 'referrer' || !ownsRequest(caller.viewer.partyId, request)) {
      return { outcome: 'found', bundle: searchset(self, []) };
    }
    if (request.erasure) return { outcome: 'erased', erasedAt: request.erasure.erasedAt };
    const version = await this.prisma.requestVersion.findUnique({
      where: { requestId_version: { requestId: request.id, version: request.currentVersion } },
      select: { sealedBundle: true, receivedAt: true },
    });
    if (!version) {
      // Erased between the two reads: its versions went with the erasure's commit.
      const erasure = await this.prisma.requestErasure.findUnique({ where: { requestId: request.id }, select: { erasedAt: true } });
      if (erasure) return { outcome: 'erased', erasedAt: erasure.erasedAt };
      throw new Error(`the request's version ${request.currentVersion} is missing`);
    }
    const sent = await this.fields.open<Bundle>(sealedFor.bundle(request.id, request.currentVersion), version.sealedBundle);
    await this.audit.record([
      {
        interaction: 'search-type',
        agent: { kind: 'referrer', ...personOf(caller), ik: request.referrerIk },
        request: { identifier: search.identifier, ownerPartyId: request.referrerPartyId, version: request.currentVersion },
        query: `identifier=${encodeURIComponent(search.identifier)}`,
        source: 'intake',
      },
    ]);
    return {
      outcome: 'found',
      bundle: searchset(self, entriesOf(sent, { version: request.currentVersion, receivedAt: version.receivedAt, status: request.status })),
    };
  }
}

/**
 * The version's resources as search results: its ServiceRequest the match, with the version as
 * `meta.versionId`, when it was received as `meta.lastUpdated` and the status the service holds
 * now (`revoked` after a revocation); every other resource of the bundle as sent, an include.
 * Only `fullUrl` and `resource` of each entry are kept (a searchset entry carries no `request`).
 */
function entriesOf(sent: Bundle, latest: { version: number; receivedAt: Date; status: string }): BundleEntry[] {
  const entries = (sent.entry ?? []).filter((entry): entry is BundleEntry & { resource: Resource } => entry.resource !== undefined);
  const match = entries.filter((entry) => entry.resource.resourceType === 'ServiceRequest');
  const include = entries.filter((entry) => entry.resource.resourceType !== 'ServiceRequest');
  const entryOf = (entry: BundleEntry, resource: Resource, mode: 'match' | 'include'): BundleEntry => ({
    ...(entry.fullUrl ? { fullUrl: entry.fullUrl } : {}),
    resource,
    search: { mode },
  });
  return [
    ...match.map((entry) => {
      const request = entry.resource as ServiceRequest;
      const meta = { ...request.meta, versionId: String(latest.version), lastUpdated: latest.receivedAt.toISOString() };
      return entryOf(entry, { ...request, meta, status: latest.status as ServiceRequest['status'] }, 'match');
    }),
    ...include.map((entry) => entryOf(entry, entry.resource, 'include')),
  ];
}

function searchset(self: string, entry: BundleEntry[]): Bundle {
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    total: entry.some((item) => item.search?.mode === 'match') ? 1 : 0,
    link: [{ relation: 'self', url: self }],
    // FHIR JSON has no empty arrays: no `entry` when nothing matches.
    ...(entry.length ? { entry } : {}),
  };
}
