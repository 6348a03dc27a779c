// Mutations of a valid AdmissionRequestBundle for the fuzz fault: deleted, duplicated and retyped
// fields, huge strings, deep nesting, forbidden keys, odd Unicode, extreme numbers, foreign
// identifiers, unknown performers, and bodies that are not bundles or not JSON at all. Seeded, so
// a run's 10,000 cases are the same every time (FAULTS_FUZZ_SEED picks another set).
import fc, { type GeneratorValue } from 'fast-check';

export interface FuzzCase {
  /** What was done to the valid bundle, to reproduce a surprising answer. */
  description: string;
  body: string;
  contentType: string;
  /** The ServiceRequest identifier the mutated bundle carries, if it still has one. */
  identifier?: string;
}

/**
 * fast-check's imperative generator (`fc.gen()`), drawn once with `seed`: every value taken from it
 * follows from the seed, so a run can be repeated.
 */
export function seededGenerator(seed: number): GeneratorValue {
  const [generator] = fc.sample(fc.gen(), { seed, numRuns: 1 });
  if (!generator) throw new Error('fast-check drew no generator');
  return generator;
}

// fast-check biases draws towards small and extreme values (a 0..15 integer came out 0..3 almost
// four times as often as 4..11); the mutations are picked with equal chances instead.
const uniformInt = (max: number) => fc.noBias(fc.integer({ min: 0, max }));
const uuidV4 = () => fc.noBias(fc.uuid({ version: 4 }));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };
interface Node {
  path: string;
  parent: Container;
  key: string | number;
  value: Json;
}

// Placeholders the serialised text is patched at: JSON.stringify cannot write these itself.
const DEEP = '\u0001fuzz-deep\u0001';
const FORBIDDEN_KEY = '\u0001fuzz-key\u0001';

export class BundleMutator {
  private readonly generate: GeneratorValue;

  constructor(
    /** A valid bundle as JSON text, in which `placeholder` stands for the request's UUID. */
    private readonly template: string,
    private readonly placeholder: string,
    seed: number,
  ) {
    this.generate = seededGenerator(seed);
  }

  next(): FuzzCase {
    if (this.chance(0.08)) return this.notABundle();
    const bundle = JSON.parse(this.template.replaceAll(this.placeholder, this.uuid())) as Json;
    const applied: string[] = [];
    const count = 1 + this.int(3);
    const patches: ((text: string) => string)[] = [];
    for (let index = 0; index < count; index++) {
      const mutation = this.pick(MUTATIONS);
      applied.push(mutation.name + ' ' + mutation.apply(this, bundle, patches));
    }
    const identifier = requestIdentifierOf(bundle);
    let body = JSON.stringify(bundle);
    for (const patch of patches) body = patch(body);
    const contentType = this.chance(0.03)
      ? this.pick(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/fhir+json; charset=utf-16'])
      : 'application/fhir+json';
    return {
      description: `${applied.join('; ')}${contentType === 'application/fhir+json' ? '' : ` (content-type ${contentType})`}`,
      body,
      contentType,
      ...(identifier ? { identifier } : {}),
    };
  }

  /** A version 4 UUID drawn from the seeded generator: a new request per case, the same ones every run. */
  uuid(): string {
    return this.generate(uuidV4);
  }

  /** 0 to `below - 1`, uniformly. */
  int(below: number): number {
    return this.generate(uniformInt, below - 1);
  }

  /** True with `probability`, to a millionth. */
  chance(probability: number): boolean {
    return this.int(1_000_000) < probability * 1_000_000;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A random node of the tree (not the root). */
  node(root: Json, filter: (node: Node) => boolean = () => true): Node | undefined {
    const nodes: Node[] = [];
    const walk = (value: Json, path: string) => {
      if (value === null || typeof value !== 'object') return;
      const entries: [string | number, Json][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
      for (const [key, child] of entries) {
        const childPath = typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`;
        nodes.push({ path: childPath, parent: value, key, value: child });
        walk(child, childPath);
      }
    };
    walk(root, 'Bundle');
    const candidates = nodes.filter(filter);
    return candidates.length ? this.pick(candidates) : undefined;
  }

  randomValue(depth = 0): Json {
    const kind = this.int(depth > 2 ? 4 : 6);
    if (kind === 0) return null;
    if (kind === 1) return this.chance(0.5);
    if (kind === 2) return this.pick([0, -1, 1.5, 2 ** 31, -(2 ** 53), 1e300, 123456789]);
    if (kind === 3) {
      return this.pick(['', 'x', 'urn:uuid:not-a-uuid', '2026-13-45', '<script>alert(1)</script>', "' OR 1=1 --", '../../etc/passwd', '${jndi:ldap://x}']);
    }
    if (kind === 4) return Array.from({ length: this.int(4) }, () => this.randomValue(depth + 1));
    return Object.fromEntries(Array.from({ length: this.int(4) }, (_item, index) => [`k${index}`, this.randomValue(depth + 1)]));
  }

  private notABundle(): FuzzCase {
    const bodies: [string, () => string][] = [
      ['random JSON', () => JSON.stringify(this.randomValue())],
      ['truncated JSON', () => this.template.slice(0, this.int(this.template.length))],
      ['empty body', () => ''],
      ['not JSON', () => this.pick(['<Bundle xmlns="http://hl7.org/fhir"/>', 'undefined', 'NaN', '{"a":1,}', "{'a':1}", '\u0000\u0001\u0002', '\ufeff{}'])],
      ['JSON array of bundles', () => `[${this.template},${this.template}]`],
      ['over 10 MiB', () => JSON.stringify({ resourceType: 'Bundle', padding: 'x'.repeat(10 * 1024 * 1024 + 1) })],
    ];
    const [name, make] = this.pick(this.chance(0.02) ? bodies : bodies.slice(0, -1));
    return { description: name, body: make(), contentType: 'application/fhir+json' };
  }
}

interface Mutation {
  name: string;
  /** Changes `bundle` in place (or registers a text patch); returns where. */
  apply(m: BundleMutator, bundle: Json, patches: ((text: string) => string)[]): string;
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

const MUTATIONS: readonly Mutation[] = [
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

function requestIdentifierOf(bundle: Json): string | undefined {
  const entries = (bundle as { entry?: { resource?: { resourceType?: string; identifier?: { value?: unknown }[] } }[] } | null)?.entry;
  if (!Array.isArray(entries)) return undefined;
  const serviceRequest = entries.find((entry) => entry?.resource?.resourceType === 'ServiceRequest')?.resource;
  const value = Array.isArray(serviceRequest?.identifier) ? serviceRequest.identifier[0]?.value : undefined;
  return typeof value === 'string' ? value : undefined;
}
