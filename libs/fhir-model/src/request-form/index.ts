/**
 * The request form: what a person types to create an admission request (`RequestForm`), the
 * AdmissionRequestBundle made of it (`buildAdmissionRequestBundle`) and the form read back from a
 * stored bundle (`formOfBundle`), for the web app's request page.
 */
export { buildAdmissionRequestBundle, fhirBaseOf, requestIdentifierFor, type BuildAdmissionRequestOptions } from './build';
export { COVERAGE_KINDS, ICD10GM_CODE, REQUEST_FORM_BOUNDS, STAY_STATUSES, type CoverageKind } from './fields';
export { fieldPath } from './messages';
export { formOfBundle, RequestFormReadError } from './read';
export { REQUEST_FORM_STAGES, RequestForm, requestFormSchema, type RequestFormSchemaOptions, type RequestFormStage } from './schema';
