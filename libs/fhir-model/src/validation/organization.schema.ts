import { z } from 'zod';
import { type FhirSystems, IK_NUMBER_SYSTEM } from '../systems';
import { fhirId, fhirString, isAbsoluteUri } from './datatypes';
import { quoted } from './excerpt';
import { customIssue } from './issues';

/**
 * Organization (spec, "Organization"): clinics are identified by exactly one IK number; a
 * performer may add one deep link (`{profile_base}/fhir/sid/performer-deep-link`) back into the
 * referrer's own system.
 */
export function organizationSchema(systems: FhirSystems) {
  const identifier = z.object({ system: fhirString, value: fhirString }).superRefine((id, ctx) => {
    if (id.system === IK_NUMBER_SYSTEM && !/^\d{9}$/.test(id.value)) {
      ctx.addIssue(customIssue('value', `IK number ${quoted(id.value)} must be 9 digits`, ['value']));
    }
    if (id.system === systems.performerDeepLinkSystem && !isAbsoluteUri(id.value)) {
      ctx.addIssue(customIssue('value', 'the performer deep link must be an absolute URI', ['value']));
    }
  });

  return z.object({
    resourceType: z.literal('Organization'),
    id: fhirId.optional(),
    identifier: z
      .array(identifier)
      .min(1)
      .superRefine((identifiers, ctx) => {
        const ikIndexes = indexesOf(identifiers, IK_NUMBER_SYSTEM);
        if (ikIndexes.length === 0) {
          ctx.addIssue(customIssue('required', `an identifier with system ${IK_NUMBER_SYSTEM} (IK number) is required`));
        }
        for (const index of ikIndexes.slice(1)) {
          ctx.addIssue(customIssue('invalid', 'an Organization has exactly one IK number', [index]));
        }
        for (const index of indexesOf(identifiers, systems.performerDeepLinkSystem).slice(1)) {
          ctx.addIssue(customIssue('invalid', 'an Organization has at most one performer deep link', [index]));
        }
      }),
    name: fhirString,
  });
}
export type ParsedOrganization = z.infer<ReturnType<typeof organizationSchema>>;

function indexesOf(identifiers: readonly { system: string }[], system: string): number[] {
  return identifiers.flatMap((identifier, index) => (identifier.system === system ? [index] : []));
}

export function ikNumberOf(organization: ParsedOrganization): string | undefined {
  return organization.identifier.find((identifier) => identifier.system === IK_NUMBER_SYSTEM)?.value;
}
