export { idOfCanonical, type ConformanceOptions } from './canonical';
export { codeSystems } from './code-systems';
export { bundleProfiles, DOCUMENT_BUNDLE_CARDINALITY } from './structure-definitions';
export { extensionDefinitions } from './extension-definitions';
export {
  capabilityStatement,
  conformanceResources,
  CONFORMANCE_RESOURCE_TYPES,
  AUDIT_EVENT_RESULT_PARAMETERS,
  TASK_RESULT_PARAMETERS,
  type CapabilityStatementOptions,
  type SystemClientSecurity,
  type ConformanceResources,
  type ConformanceResourceType,
} from './capability-statement';
