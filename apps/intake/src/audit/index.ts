export { AuditAnchorJob, AuditAnchors } from './audit-anchors';
export type { AuditAgent, AuditEntry, AuditRecord } from './audit-event';
export { appendPayload, AuditTrailRepository } from './audit-trail.repository';
export { AuditTrail, entriesOf, type ChainReport } from './audit-trail.service';
export { RequestExport, type ExportedRequest } from './request-export';
