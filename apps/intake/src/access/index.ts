export {
  auditEventAccess,
  ownsRequest,
  relationOf,
  requestGrantOf,
  taskAccess,
  type AuditEntryFacts,
  type ClinicViewer,
  type ReferrerViewer,
  type Relation,
  type RequestGrant,
  type TaskFacts,
  type Viewer,
} from './access-policy';
export { callerOf, personOf, type Caller } from './caller';
