import { fhirSystems, type FhirSystems } from '../systems';

/**
 * Builds schemas once per profile base: building them costs more than using them, and a running
 * service has exactly one profile base (docs/decisions.md: `PROFILE_BASE`).
 */
export function perProfileBase<T>(build: (systems: FhirSystems) => T): (profileBase: string) => T {
  const built = new Map<string, T>();
  return (profileBase) => {
    let schemas = built.get(profileBase);
    if (schemas === undefined) {
      schemas = build(fhirSystems(profileBase));
      built.set(profileBase, schemas);
    }
    return schemas;
  };
}
