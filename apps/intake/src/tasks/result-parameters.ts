import type { Coding, Task } from '@medplum/fhirtypes';

/**
 * What a Task read or search may ask of the answer's shape beside the search itself: `_elements`
 * (search.html#elements); `_format` is read with the query (search/search-query.ts).
 */

/**
 * Every top-level element of an R4 Task. A Record over `keyof Task` of @medplum/fhirtypes, whose
 * types are generated from the R4 StructureDefinitions: the compiler refuses a missing or an extra name.
 */
const TASK_ELEMENTS: Record<keyof Task, true> = {
  resourceType: true,
  id: true,
  meta: true,
  implicitRules: true,
  language: true,
  text: true,
  contained: true,
  extension: true,
  modifierExtension: true,
  identifier: true,
  instantiatesCanonical: true,
  instantiatesUri: true,
  basedOn: true,
  groupIdentifier: true,
  partOf: true,
  status: true,
  statusReason: true,
  businessStatus: true,
  intent: true,
  priority: true,
  code: true,
  description: true,
  focus: true,
  for: true,
  encounter: true,
  executionPeriod: true,
  authoredOn: true,
  lastModified: true,
  requester: true,
  performerType: true,
  owner: true,
  location: true,
  reasonCode: true,
  reasonReference: true,
  insurance: true,
  note: true,
  relevantHistory: true,
  restriction: true,
  input: true,
  output: true,
};

/** The elements of Task with cardinality 1..1 (`status`, `intent`, and `resourceType` in JSON): the compiler checks the list against the type. */
type RequiredTaskElement = { [K in keyof Task]-?: object extends Pick<Task, K> ? never : K }[keyof Task];

/**
 * Kept whatever `_elements` names: "Servers SHOULD always return mandatory elements whether they are
 * requested or not" (search.html#elements), and a resource without `id` and `meta` could not be
 * told apart or recognised as subsetted.
 */
const ALWAYS_KEPT: Record<RequiredTaskElement | 'id' | 'meta', true> = { resourceType: true, id: true, meta: true, status: true, intent: true };

/** "Servers SHOULD mark the resources with the tag SUBSETTED" (search.html#elements). */
export const SUBSETTED: Coding = { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED', display: 'subsetted' };

export function isTaskElement(name: string): boolean {
  return Object.hasOwn(TASK_ELEMENTS, name);
}

/** The Task with only the named elements and the mandatory ones, tagged SUBSETTED; keys keep their order. */
export function subsetOf(task: Task, elements: readonly string[]): Task {
  const kept = Object.entries(task).filter(([name]) => Object.hasOwn(ALWAYS_KEPT, name) || elements.includes(name));
  return { ...(Object.fromEntries(kept) as Task), meta: { ...task.meta, tag: [...(task.meta?.tag ?? []), SUBSETTED] } };
}
