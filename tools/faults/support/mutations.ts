// Mutations of a valid AdmissionRequestBundle for the fuzz fault: deleted, duplicated and retyped
// fields, huge strings, deep nesting, forbidden keys, odd Unicode, extreme numbers, foreign
// identifiers and unknown performers.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };
/** A place in a bundle's JSON tree. */
export interface Node {
  path: string;
  parent: Container;
  key: string | number;
  value: Json;
}

/** The seeded draws a mutation makes (BundleMutator). */
export interface Mutator {
  int(below: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A node of `root` that passes `filter`, drawn at random; undefined when none does. */
  node(root: Json, filter?: (node: Node) => boolean): Node | undefined;
  randomValue(depth?: number): Json;
}

// Placeholders the serialised text is patched at: JSON.stringify cannot write these itself.
const DEEP = '\u0001fuzz-deep\u0001';
const FORBIDDEN_KEY = '\u0001fuzz-key\u0001';

interface Mutation {
  name: string;
  /** Changes `bundle` in place (or registers a text patch); returns where. */
  apply(m: Mutator, bundle: Json, patches: ((text: string) => string)[]): string;
}

const isString = (node: Node) => typeof node.value === 'string';
const isContainer = (node: Node) => node.value !== null && typeof node.value === 'object';
const isObject = (node: Node) => isContainer(node) && !Array.isArray(node.value);
const isArray = (node: Node) => Array.isArray(node.value);
const set = (node: Node, value: Json) => {
  (node.parent as Record<string | number, Json>)[node.key] = value;
};

// Up to 10,000 characters a string is allowed; beyond, it must be refused.
const HUGE_LENGTHS = [3_000, 9_000, 10_001, 12_345, 65_536, 1_000_000];
const ODD_STRINGS = ['a\u0000b', '\ud800', '\udfff\ud800', '\u202eevil', '🏥🛏️', 'zero\u200bwidth', 'tab\tnew\nline', '\u0007bell', 'ﬀ', 'Ā̈́'];

export const MUTATIONS: readonly Mutation[] = [
  {
    name: 'delete',
    apply(m, bundle) {
      const node = m.node(bundle);
      if (!node) return '-';
      if (Array.isArray(node.parent)) node.parent.splice(node.key as number, 1);
      else delete node.parent[node.key as string];
      return node.path;
    },
  },
  {
    name: 'duplicate',
    apply(m, bundle) {
      const node = m.node(bundle, isArray);
      const items = node?.value as Json[] | undefined;
      if (!node || !items?.length) return '-';
      items.push(structuredClone(items[m.int(items.length)]!));
      return node.path;
    },
  },
  {
    name: 'retype',
    apply(m, bundle) {
      const node = m.node(bundle);
      if (!node) return '-';
      let value = m.randomValue();
      while (typeof value === typeof node.value && Array.isArray(value) === Array.isArray(node.value)) value = m.randomValue();
      set(node, value);
      return `${node.path} = ${JSON.stringify(value).slice(0, 40)}`;
    },
  },
  {
    name: 'huge string',
    apply(m, bundle) {
      const node = m.node(bundle, isString);
      if (!node) return '-';
      const length = m.pick(HUGE_LENGTHS);
      set(node, `${node.value as string}${'ä'.repeat(length)}`);
      return `${node.path} (+${length} characters)`;
    },
  },
  {
    name: 'deep nesting',
    apply(m, bundle, patches) {
      const node = m.node(bundle);
      if (!node) return '-';
      const depth = m.pick([33, 100, 1_000, 100_000]);
      const [open, close] = m.chance(0.5) ? ['[', ']'] : ['{"n":', '}'];
      set(node, DEEP);
      patches.push((text) => text.replace(JSON.stringify(DEEP), `${open.repeat(depth)}1${close.repeat(depth)}`));
      return `${node.path} (${depth} levels)`;
    },
  },
  {
    name: 'forbidden key',
    apply(m, bundle, patches) {
      const node = m.node(bundle, isObject);
      if (!node) return '-';
      const key = m.pick(['__proto__', 'constructor', 'prototype']);
      (node.value as Record<string, Json>)[FORBIDDEN_KEY] = { polluted: true };
      patches.push((text) => text.replace(JSON.stringify(FORBIDDEN_KEY), JSON.stringify(key)));
      return `${node.path}.${key}`;
    },
  },
  {
    name: 'odd unicode',
    apply(m, bundle) {
      const node = m.node(bundle, isString);
      if (!node) return '-';
      const odd = m.pick(ODD_STRINGS);
      set(node, `${node.value as string}${odd}`);
      return `${node.path} += ${JSON.stringify(odd)}`;
    },
  },
  {
    name: 'extreme number',
    apply(m, bundle, patches) {
      const node = m.node(bundle, (candidate) => !isContainer(candidate));
      if (!node) return '-';
      const number = m.pick(['1e999', '-1e999', '1e-400', '9007199254740993', '-0', '0.30000000000000004', '1E+2']);
      const marker = `\u0001fuzz-number-${m.int(1e9)}\u0001`;
      set(node, marker);
      patches.push((text) => text.replace(JSON.stringify(marker), number));
      return `${node.path} = ${number}`;
    },
  },
  {
    name: 'shuffle',
    apply(m, bundle) {
      const node = m.node(bundle, isArray);
      const items = node?.value as Json[] | undefined;
      if (!node || !items) return '-';
      for (let index = items.length - 1; index > 0; index--) {
        const other = m.int(index + 1);
        [items[index], items[other]] = [items[other]!, items[index]!];
      }
      return node.path;
    },
  },
  {
    name: 'unknown field',
    apply(m, bundle) {
      const node = m.node(bundle, isObject);
      if (!node) return '-';
      (node.value as Record<string, Json>)[m.pick(['extension', 'modifierExtension', 'fuzz', '_status', 'contained'])] = m.randomValue();
      return node.path;
    },
  },
  {
    name: 'resource type',
    apply(m, bundle) {
      const node = m.node(bundle, (candidate) => candidate.key === 'resourceType');
      if (!node) return '-';
      set(node, m.pick(['Patient', 'Bundle', 'Task', 'Binary', 'serviceRequest', '']));
      return node.path;
    },
  },
  {
    name: 'foreign identifier',
    apply(m, bundle) {
      const node = m.node(bundle, (candidate) => typeof candidate.value === 'string' && candidate.value.includes('/ServiceRequest/'));
      if (!node) return '-';
      set(node, (node.value as string).replace(/^https:\/\/[^/]+/, m.pick(['https://other-hospital.example', 'http://faults-hospital.example', 'urn:x'])));
      return node.path;
    },
  },
  {
    // Strings up to 10,000 characters are allowed; the request identifier is also a database key
    // and is echoed in the 202's Location header.
    name: 'long identifier',
    apply(m, bundle) {
      const node = m.node(bundle, (candidate) => typeof candidate.value === 'string' && /\/ServiceRequest\/[0-9a-f-]{36}$/.test(candidate.value));
      if (!node) return '-';
      const length = m.pick([1_000, 2_800, 5_000, 9_000]);
      set(node, `${node.value as string}-${'x'.repeat(length)}`);
      return `${node.path} (+${length + 1} characters)`;
    },
  },
  {
    name: 'unknown performer',
    apply(m, bundle) {
      const node = m.node(bundle, (candidate) => candidate.key === 'value' && typeof candidate.value === 'string' && /^519\d{6}$/.test(candidate.value));
      if (!node) return '-';
      set(node, m.pick(['519999999', '000000000', '51990000', '5199000010']));
      return node.path;
    },
  },
];
