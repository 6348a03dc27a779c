import { fhirSystems } from './systems';
import { arrayField, field } from './validation/raw';

export type BundleKind = 'admission-request' | 'document' | 'unknown';

/**
 * Whether a profile list claims a profile. A canonical may carry a version (`<url>|<version>`,
 * FHIR R4 "canonical"), which still claims the profile.
 */
export function claimsProfile(profiles: readonly unknown[], profile: string): boolean {
  return profiles.some((claimed) => claimed === profile || (typeof claimed === 'string' && claimed.startsWith(`${profile}|`)));
}

/**
 * What a POSTed bundle is, told apart by `Bundle.meta.profile` (spec, "What the service does" 5 and
 * "Versioning" 2). A bundle claiming both profiles, or neither, is `unknown`. Never throws.
 */
export function bundleKind(input: unknown, profileBase: string): BundleKind {
  const systems = fhirSystems(profileBase);
  const profiles = arrayField(field(input, 'meta'), 'profile');
  const admissionRequest = claimsProfile(profiles, systems.admissionRequestBundleProfile);
  const document = claimsProfile(profiles, systems.documentBundleProfile);
  if (admissionRequest === document) return 'unknown';
  return admissionRequest ? 'admission-request' : 'document';
}
