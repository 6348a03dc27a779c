/**
 * Test fixtures of the FHIR model, for unit and integration tests of every service. Not exported
 * from the library's main entry point: production code never builds these.
 */
export * from './admission-request-bundle';
export * from './bundle-access';
export * from './document-bundle';
export * from './task';
export { seededUuid } from './ids';
