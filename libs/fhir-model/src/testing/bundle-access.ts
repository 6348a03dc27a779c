import type { Bundle, ExtractResource, ResourceType } from '@medplum/fhirtypes';

/** Index of the first entry holding a resource of this type (throws if there is none: a broken test setup). */
export function entryIndexOf(bundle: Bundle, resourceType: ResourceType, nth = 0): number {
  const indexes = (bundle.entry ?? []).flatMap((entry, index) => (entry.resource?.resourceType === resourceType ? [index] : []));
  const index = indexes[nth];
  if (index === undefined) throw new Error(`the bundle has no ${resourceType} entry number ${nth}`);
  return index;
}

/** The resource of the nth entry of this type, typed, for tests that change one field of a fixture. */
export function resourceOf<K extends ResourceType>(bundle: Bundle, resourceType: K, nth = 0): ExtractResource<K> {
  return bundle.entry?.[entryIndexOf(bundle, resourceType, nth)]?.resource as ExtractResource<K>;
}

/**
 * Sets (or, with `undefined`, deletes) the element at a FHIRPath-like path such as
 * `entry[0].resource.identifier[0].value`, to break one rule of a valid fixture. Returns the target.
 */
export function setAt<T extends object>(target: T, path: string, value: unknown): T {
  const segments = path.split(/\.|(?=\[)/).map((segment) => (segment.startsWith('[') ? Number(segment.slice(1, -1)) : segment));
  const last = segments.pop();
  const parent = segments.reduce<unknown>((node, segment) => (node as Record<string | number, unknown>)?.[segment], target);
  if (typeof parent !== 'object' || parent === null || last === undefined) throw new Error(`no element at ${path}`);
  const container = parent as Record<string | number, unknown>;
  if (value === undefined && Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
  else if (value === undefined) delete container[last];
  else container[last] = value;
  return target;
}
