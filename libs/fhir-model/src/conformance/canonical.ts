/** What every conformance resource of the interface is built from. */
export interface ConformanceOptions {
  /** `{profile_base}` (docs/decisions.md: `PROFILE_BASE`): the canonical URLs hang off it. */
  profileBase: string;
  /** The business version of the resources: the service's version, so a release changes them together. */
  version: string;
  /** When they were published (FHIR `dateTime`); the running service passes its start. */
  date: string;
}

/**
 * The logical id of a conformance resource: the last segment of its canonical URL
 * (`{profile_base}/fhir/CodeSystem/specialty` → `specialty`), which is also where the service
 * serves it (`GET [base]/CodeSystem/specialty`).
 */
export function idOfCanonical(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

/** What a conformance resource says about itself. */
export interface CanonicalDescription {
  url: string;
  /** Computer-friendly name (`BedrequestServiceType`). */
  name: string;
  title: string;
  description: string;
}

/** The metadata elements every conformance resource of the interface shares (its id from its URL). */
export function canonicalMetadata({ url, name, title, description }: CanonicalDescription, options: ConformanceOptions) {
  return {
    id: idOfCanonical(url),
    url,
    version: options.version,
    name,
    title,
    status: 'active',
    experimental: false,
    date: options.date,
    description,
  } as const;
}
