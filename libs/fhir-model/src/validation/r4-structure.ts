import type { IssueCode } from '../outcome';
import { quoted } from './excerpt';
import { elementName, type PathSegment } from './fhir-path';
import { issue } from './issues';
import { FORBIDDEN_KEYS, MAX_NESTING_DEPTH, type JsonInspection } from './json-guard';
import { R4, type ElementDefinitions, type ElementRule, type PrimitiveType, type RequiredElement } from './r4-definitions';
import { isRecord, type JsonObject } from './raw';
import { MAX_ISSUES } from './result';

/**
 * Checks a bundle against the FHIR R4 element definitions (FHIR R4 JSON representation, json.html):
 *
 * | finding                                                        | issue type  |
 * |----------------------------------------------------------------|-------------|
 * | an element R4 does not define here (a typo, `notes`, `foo`)    | `structure` |
 * | an element R4 requires (min 1) is missing                      | `required`  |
 * | an array where R4 allows one value, or one value for an array  | `structure` |
 * | a primitive of the wrong JSON type                             | `structure` |
 * | a primitive value outside its R4 regex, or an empty string     | `value`     |
 * | an empty object, an empty array, `null` (but null in a primitive array whose `_name` array carries that item) | `structure` |
 * | a resource type the table does not hold (a contained Practitioner) | `code-invalid` |
 *
 * One walk over the input; lookups in maps built when the module loaded. It stops at the JSON
 * guard's depth limit (the guard reports that), so a cycle or a deep nest ends there.
 */
export function inspectR4Structure(bundle: JsonObject): JsonInspection {
  const inspection: JsonInspection = { issues: [], omitted: 0 };
  // One path stack for the whole walk, copied only when something is reported.
  const path: PathSegment[] = [];
  // Messages are built eagerly (no closures on the hot path), except the costlier ones, which
  // are skipped once MAX_ISSUES are listed.
  const listing = () => inspection.issues.length < MAX_ISSUES;
  const report = (code: IssueCode, diagnostics: string) => {
    if (listing()) inspection.issues.push(issue(code, diagnostics, path));
    else inspection.omitted++;
  };

  const visitObject = (value: JsonObject, definition: ElementDefinitions, depth: number): void => {
    if (depth > MAX_NESTING_DEPTH) return;
    const keys = Object.keys(value);
    if (keys.length === 0) return report('structure', 'an empty object is not allowed in FHIR JSON');
    for (const key of keys) {
      const rule = definition.elements.get(key);
      // The JSON guard refuses `__proto__` and its kind wherever they are.
      if (!rule && ((key === 'resourceType' && definition.isResource) || FORBIDDEN_KEYS.has(key))) continue;
      path.push(key);
      if (rule) visitElement(value, key, rule, depth + 1);
      else report('structure', listing() ? unknownElement(key, definition) : '');
      path.pop();
    }
    for (const required of definition.required) {
      if (hasAny(value, required.satisfiedBy)) continue;
      path.push(required.name);
      report('required', requiredElement(required));
      path.pop();
    }
  };

  const visitElement = (parent: JsonObject, key: string, rule: ElementRule, depth: number): void => {
    const value = parent[key];
    if (!rule.array) {
      if (Array.isArray(value)) return report('structure', `${key} takes a single value in FHIR R4, not an array`);
      return visitValue(value, rule, depth, false);
    }
    if (!Array.isArray(value)) return report('structure', `${key} must be an array (FHIR R4 allows it more than once)`);
    if (value.length === 0) return report('structure', `${key} must not be an empty array`);
    // `given: ["Erika", null]` with `_given: [null, {...}]`: a null stands for the item whose id and
    // extensions the partner array carries (FHIR R4 JSON, "Representing primitive elements").
    const partner = isPrimitive(rule) ? parent[key.startsWith('_') ? key.slice(1) : `_${key}`] : undefined;
    if (rule.type.kind === 'primitive-extension' && Array.isArray(partner) && partner.length !== value.length) {
      report('structure', `${key} must have as many items as ${key.slice(1)} (${partner.length}), found ${value.length}`);
    }
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      const partnerItem: unknown = Array.isArray(partner) ? partner[index] : undefined;
      visitValue(value[index], rule, depth + 1, partnerItem !== null && partnerItem !== undefined);
      path.pop();
    }
  };

  const visitValue = (value: unknown, rule: ElementRule, depth: number, nullAllowed: boolean): void => {
    const { type } = rule;
    if (value === null) {
      if (!nullAllowed) report('structure', 'null is not allowed in FHIR JSON');
      return;
    }
    if (type.kind === 'primitive') return checkPrimitive(value, type.primitive);
    if (!isRecord(value)) return report('structure', `${elementOfPath()} must be a JSON object (${objectKind(rule)})`);
    if (type.kind === 'primitive-extension') visitObject(value, R4.element, depth);
    else if (type.kind === 'complex') visitObject(value, type.definition, depth);
    else visitResource(value, depth);
  };

  const checkPrimitive = (value: unknown, primitive: PrimitiveType): void => {
    if (typeof value !== primitive.json) {
      return report('structure', `${elementOfPath()} must be a JSON ${primitive.json} (FHIR ${primitive.name})`);
    }
    if (value === '') return report('value', `${elementOfPath()} must not be an empty string (FHIR JSON)`);
    if (!primitive.matches(String(value))) report('value', `${elementOfPath()} is not a valid FHIR ${primitive.name}`);
  };

  const visitResource = (value: JsonObject, depth: number): void => {
    const resourceType = value['resourceType'];
    const definition = typeof resourceType === 'string' ? R4.resources.get(resourceType) : undefined;
    if (definition) return visitObject(value, definition, depth);
    path.push('resourceType');
    if (resourceType === undefined) report('required', 'resourceType is required');
    else if (typeof resourceType !== 'string') report('structure', 'resourceType must be a JSON string');
    else report('code-invalid', `resourceType ${quoted(resourceType)} is not one a bundle of this service may carry (${CARRIED_TYPES})`);
    path.pop();
  };

  const elementOfPath = () => elementName(path);

  visitObject(bundle, R4.bundle, 1);
  return inspection;
}

function hasAny(value: JsonObject, properties: readonly string[]): boolean {
  for (const property of properties) if (Object.hasOwn(value, property)) return true;
  return false;
}

const CARRIED_TYPES = [...R4.resources.keys()].join(', ');

const isPrimitive = (rule: ElementRule) => rule.type.kind === 'primitive' || rule.type.kind === 'primitive-extension';

function objectKind({ type }: ElementRule): string {
  if (type.kind === 'complex') return `FHIR ${type.definition.path}`;
  return type.kind === 'resource' ? 'a resource' : 'id and extensions of the primitive';
}

function unknownElement(key: string, definition: ElementDefinitions): string {
  const suggestion = nearestName(key, definition.elements.keys());
  const hint = suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`;
  return `unknown element ${quoted(key)} in ${definition.path}${hint}`;
}

function requiredElement({ name, properties }: RequiredElement): string {
  return properties.length > 1 ? `${name}[x] is required (one of ${properties.join(', ')})` : `${name} is required`;
}

/**
 * The known name closest to a misspelt one, if within 2 edits (Levenshtein): `occurenceDateTime` →
 * `occurrenceDateTime`, `notes` → `note`. Names differing in length by more than 2 are skipped
 * unmeasured, so a 3 MB key costs nothing. `_name` forms are suggested only for a key with `_`.
 */
export function nearestName(key: string, names: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    if (name.startsWith('_') !== key.startsWith('_') || Math.abs(name.length - key.length) >= bestDistance) continue;
    const distance = editDistance(key, name, bestDistance);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance of two short strings, or `limit` once it is certain to reach it. */
function editDistance(a: string, b: string, limit: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum >= limit) return limit;
    previous = current;
  }
  return Math.min(previous[b.length] ?? limit, limit);
}
