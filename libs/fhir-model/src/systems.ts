/**
 * Code systems, naming systems and profile URIs of the interface.
 *
 * The service-owned URIs hang off `{profile_base}` (interface specification, "Placeholders";
 * docs/decisions.md makes it configurable as `PROFILE_BASE`), so they are built by `fhirSystems`. The
 * national systems are fixed (docs/decisions.md, "Placeholders").
 */

export const DEFAULT_PROFILE_BASE = 'https://bedrequest.example.org';

/** IK number (Institutionskennzeichen) of hospitals, clinics and payors. */
export const IK_NUMBER_SYSTEM = 'http://fhir.de/sid/arge-ik/iknr';
/** Hospital department key (DKG Fachabteilungsschlüssel). */
export const DEPARTMENT_KEY_SYSTEM = 'http://fhir.de/CodeSystem/dkgev/Fachabteilungsschluessel';
export const ICD10GM_SYSTEM = 'http://fhir.de/CodeSystem/bfarm/icd-10-gm';
export const INSURANCE_TYPE_SYSTEM = 'http://fhir.de/CodeSystem/versicherungsart-de-basis';

/** Identifiers whose value is itself a URI: the ServiceRequest and Patient identifiers. */
export const URI_IDENTIFIER_SYSTEM = 'urn:ietf:rfc:3986';
export const LOINC_SYSTEM = 'http://loinc.org';
export const UCUM_SYSTEM = 'http://unitsofmeasure.org';
export const ACT_CODE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v3-ActCode';
/** The extension that marks a masked (pseudonymized) name (spec, Patient). */
export const NULL_FLAVOR_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/iso21090-nullFlavor';
export const MASKED_NULL_FLAVOR = 'MSK';

export interface FhirSystems {
  profileBase: string;
  admissionRequestBundleProfile: string;
  documentBundleProfile: string;
  /** Naming system of `Bundle.identifier` (the transmission number). */
  admissionRequestNamingSystem: string;
  serviceTypeSystem: string;
  specialtySystem: string;
  orderDetailSystem: string;
  admissionResponseStatusSystem: string;
  performerDeepLinkSystem: string;
  /** The user ids of the parties' people (auth's accounts, the access token's `act.sub`): who of a clinic wrote a Task's note. */
  userSystem: string;
  /** ServiceRequest extension: by when the referrer needs the clinics' answers (docs/api.md, "Answer deadlines"). */
  answerDeadlineExtension: string;
  /** Task extension: when the service marked the Task overdue, its deadline passed unanswered (docs/api.md, "Answer deadlines"). */
  answerOverdueExtension: string;
  /** Task extension: the referrer's rule asked the clinic after the deadline, from its list or the registry (docs/api.md, "Asking by rule"). */
  askedByRuleExtension: string;
}

export function fhirSystems(profileBase: string = DEFAULT_PROFILE_BASE): FhirSystems {
  // A trailing slash in the configured value would otherwise produce `//fhir/...` URIs.
  const base = `${profileBase.replace(/\/+$/, '')}/fhir`;
  return {
    profileBase,
    admissionRequestBundleProfile: `${base}/StructureDefinition/AdmissionRequestBundle`,
    documentBundleProfile: `${base}/StructureDefinition/DocumentBundle`,
    admissionRequestNamingSystem: `${base}/NamingSystem/admission-request`,
    serviceTypeSystem: `${base}/CodeSystem/bedrequest-service-type`,
    specialtySystem: `${base}/CodeSystem/specialty`,
    orderDetailSystem: `${base}/CodeSystem/order-detail-type`,
    admissionResponseStatusSystem: `${base}/CodeSystem/admission-response-status`,
    performerDeepLinkSystem: `${base}/sid/performer-deep-link`,
    userSystem: `${base}/sid/user`,
    answerDeadlineExtension: `${base}/StructureDefinition/answer-deadline`,
    answerOverdueExtension: `${base}/StructureDefinition/answer-overdue`,
    askedByRuleExtension: `${base}/StructureDefinition/asked-by-rule`,
  };
}
