// The fuzz fault's cases: a valid AdmissionRequestBundle with one to three of the mutations of
// mutations.ts, or a body that is not a bundle or not JSON at all. Seeded, so a run's 10,000 cases
// are the same every time (FAULTS_FUZZ_SEED picks another set).
import fc, { type GeneratorValue } from 'fast-check';
import { MUTATIONS, type Json, type Mutator, type Node } from './mutations';

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

export class BundleMutator implements Mutator {
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

function requestIdentifierOf(bundle: Json): string | undefined {
  const entries = (bundle as { entry?: { resource?: { resourceType?: string; identifier?: { value?: unknown }[] } }[] } | null)?.entry;
  if (!Array.isArray(entries)) return undefined;
  const serviceRequest = entries.find((entry) => entry?.resource?.resourceType === 'ServiceRequest')?.resource;
  const value = Array.isArray(serviceRequest?.identifier) ? serviceRequest.identifier[0]?.value : undefined;
  return typeof value === 'string' ? value : undefined;
}
