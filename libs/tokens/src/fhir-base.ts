/**
 * A referrer's FHIR base (its `fhirBase` claim) owns the ServiceRequest identifiers that begin with
 * it (docs/decisions.md, "Parties and credentials"), compared by whole path segments: `…/fhir` owns
 * `…/fhir/ServiceRequest/1`, not `…/fhir2/ServiceRequest/1`.
 */
export function isUnderFhirBase(identifier: string, fhirBase: string): boolean {
  return identifier.startsWith(withSlash(fhirBase));
}

/**
 * Whether two FHIR bases overlap: one lies under the other by whole path segments. Two spellings of
 * the same base (with and without its trailing slash) are the same base, not an overlap.
 */
export function fhirBasesOverlap(first: string, second: string): boolean {
  const [a, b] = [withSlash(first), withSlash(second)];
  return a !== b && (a.startsWith(b) || b.startsWith(a));
}

const withSlash = (fhirBase: string) => (fhirBase.endsWith('/') ? fhirBase : `${fhirBase}/`);
