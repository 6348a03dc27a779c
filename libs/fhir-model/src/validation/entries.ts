import type { Issue } from '../outcome';
import { quoted } from './excerpt';
import { issue } from './issues';
import { arrayField, field, stringField } from './raw';

/** One `Bundle.entry`, read defensively from the raw input. */
export interface EntryView {
  index: number;
  fullUrl: string | undefined;
  resource: unknown;
  resourceType: string | undefined;
}

export function entriesOf(bundle: unknown): EntryView[] {
  return arrayField(bundle, 'entry').map((entry, index) => {
    const resource = field(entry, 'resource');
    return { index, fullUrl: stringField(entry, 'fullUrl'), resource, resourceType: stringField(resource, 'resourceType') };
  });
}

/** Entries by `fullUrl`; of duplicates the first wins (the others are reported by `checkUniqueFullUrls`). */
export function entriesByFullUrl(entries: readonly EntryView[]): ReadonlyMap<string, EntryView> {
  const byFullUrl = new Map<string, EntryView>();
  for (const entry of entries) {
    if (entry.fullUrl !== undefined && !byFullUrl.has(entry.fullUrl)) byFullUrl.set(entry.fullUrl, entry);
  }
  return byFullUrl;
}

export function checkUniqueFullUrls(entries: readonly EntryView[]): Issue[] {
  const firstIndex = new Map<string, number>();
  const issues: Issue[] = [];
  for (const { fullUrl, index } of entries) {
    if (fullUrl === undefined) continue;
    const first = firstIndex.get(fullUrl);
    if (first === undefined) firstIndex.set(fullUrl, index);
    else issues.push(issue('invalid', `fullUrl ${quoted(fullUrl)} is already used by entry[${first}]`, ['entry', index, 'fullUrl']));
  }
  return issues;
}

export interface Cardinality {
  min: number;
  max: number;
}

/**
 * How often each resource type may occur. Too few is reported on `Bundle.entry`, each one too
 * many on the surplus entry itself.
 */
export function checkResourceCounts(entries: readonly EntryView[], cardinality: ReadonlyMap<string, Cardinality>): Issue[] {
  const issues: Issue[] = [];
  for (const [resourceType, { min, max }] of cardinality) {
    const found = entries.filter((entry) => entry.resourceType === resourceType);
    if (found.length < min) {
      const expected = min === max ? `exactly ${min}` : `at least ${min}`;
      issues.push(issue('required', `${expected} ${resourceType} required, found ${found.length}`, ['entry']));
    }
    for (const surplus of found.slice(max)) {
      const expected = min === max ? `exactly ${max}` : `at most ${max}`;
      issues.push(issue('structure', `${expected} ${resourceType} allowed, found ${found.length}`, ['entry', surplus.index]));
    }
  }
  return issues;
}
