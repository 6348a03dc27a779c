import type { Issue } from '../outcome';
import { URN_UUID } from './datatypes';
import type { EntryView } from './entries';
import type { PathSegment } from './fhir-path';
import { quoted } from './excerpt';
import { issue } from './issues';
import { MAX_NESTING_DEPTH } from './json-guard';
import { isRecord } from './raw';

/**
 * Every `reference` inside the resources uses the `urn:uuid:` form of an entry's `fullUrl` and
 * resolves within the bundle (spec, AdmissionRequestBundle: "References between resources use the
 * urn:uuid:<uuid> form of the fullUrl"). The references the spec names must also point to the
 * right kind of resource.
 */
const TARGET_TYPE_BY_ELEMENT: ReadonlyMap<string, string> = new Map([
  ['subject', 'Patient'],
  ['beneficiary', 'Patient'],
  ['requester', 'Organization'],
  ['performer', 'Organization'],
  ['serviceProvider', 'Organization'],
  ['encounter', 'Encounter'],
]);

interface FoundReference {
  /** Path inside the resource, ending in `reference`. */
  path: PathSegment[];
  reference: string;
}

export function checkReferences(entries: readonly EntryView[], byFullUrl: ReadonlyMap<string, EntryView>): Issue[] {
  return entries.flatMap((entry) =>
    referencesIn(entry.resource).flatMap(({ path, reference }) => {
      const at = ['entry', entry.index, 'resource', ...path];
      if (!URN_UUID.test(reference)) {
        return [issue('value', `reference ${quoted(reference)} must be 'urn:uuid:' and the UUID of an entry's fullUrl`, at)];
      }
      const target = byFullUrl.get(reference);
      if (!target) return [issue('invalid', `reference ${quoted(reference)} does not resolve to an entry of this bundle`, at)];
      const expected = expectedTargetType(path);
      if (expected && target.resourceType !== undefined && target.resourceType !== expected) {
        return [issue('invalid', `reference ${quoted(reference)} must point to a ${expected}, not ${quoted(target.resourceType)}`, at)];
      }
      return [];
    }),
  );
}

/** `subject.reference` or `performer[2].reference` directly on the resource. */
function expectedTargetType(path: readonly PathSegment[]): string | undefined {
  const [element, second, third] = path;
  const direct = path.length === 2 || (path.length === 3 && typeof second === 'number' && third === 'reference');
  return direct && typeof element === 'string' ? TARGET_TYPE_BY_ELEMENT.get(element) : undefined;
}

/** Every string `reference` property in a resource, at any depth (bounded like the JSON guard). */
function referencesIn(resource: unknown): FoundReference[] {
  const found: FoundReference[] = [];
  const visit = (value: unknown, path: PathSegment[], depth: number): void => {
    if (depth > MAX_NESTING_DEPTH || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, [...path, index], depth + 1));
      return;
    }
    if (!isRecord(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'reference' && typeof child === 'string') found.push({ path: [...path, key], reference: child });
      else visit(child, [...path, key], depth + 1);
    }
  };
  visit(resource, [], 1);
  return found;
}
