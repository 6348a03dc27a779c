import fc from 'fast-check';
import { validateAdmissionRequestBundle } from './admission-request-bundle';
import { bundleKind } from './bundle-kind';
import { validateDocumentBundle } from './document-bundle';
import type { Issue } from './outcome';
import { DEFAULT_PROFILE_BASE } from './systems';
import { admissionRequestBundle, documentBundle, setAt } from './testing';
import { MAX_NESTING_DEPTH, MAX_STRING_LENGTH } from './validation/json-guard';
import { MAX_ISSUES } from './validation/result';

/** Hostile and broken input becomes issues: never an exception, never prototype pollution. */

const options = { profileBase: DEFAULT_PROFILE_BASE };
const validators = [
  ['validateAdmissionRequestBundle', (input: unknown) => validateAdmissionRequestBundle(input, options)],
  ['validateDocumentBundle', (input: unknown) => validateDocumentBundle(input, options)],
] as const;
const issuesOf = (input: unknown): Issue[] => {
  const result = validateAdmissionRequestBundle(input, options);
  return result.ok ? [] : result.issues;
};
const fixture = () => JSON.parse(JSON.stringify(admissionRequestBundle())) as Record<string, unknown>;

describe('robustness of the validators', () => {
  describe.each(validators)('%s', (_, validate) => {
    it.each([null, undefined, 42, 'Bundle', true, [], [{ resourceType: 'Bundle' }], () => ({})])(
      'answers a non-object input (%p) with one structure issue at Bundle',
      (input) => {
        expect(validate(input)).toEqual({ ok: false, issues: [expect.objectContaining({ code: 'structure', expression: 'Bundle' })] });
      },
    );

    it('answers an input whose properties throw with an issue instead of throwing', () => {
      const input = Object.defineProperty({ resourceType: 'Bundle' }, 'entry', {
        enumerable: true,
        get: () => {
          throw new Error('boom');
        },
      });
      expect(validate(input)).toEqual({ ok: false, issues: [expect.objectContaining({ code: 'exception' })] });
    });
  });

  it.each([
    ['meta', 'meta', 'Bundle.meta'],
    ['an entry', 'entry[0]', 'Bundle.entry[0]'],
    ['a resource', 'entry[0].resource', 'Bundle.entry[0].resource'],
    ['a reference', 'entry[0].resource.subject', 'Bundle.entry[0].resource.subject'],
    ['a name', 'entry[1].resource.name[0]', 'Bundle.entry[1].resource.name[0]'],
    ['a coding', 'entry[0].resource.code.coding[0]', 'Bundle.entry[0].resource.code.coding[0]'],
  ])('reports an array in place of %s as a structure issue there', (_, at, expression) => {
    expect(issuesOf(setAt(fixture(), at, [[]]))).toContainEqual(expect.objectContaining({ code: 'structure', expression }));
  });

  describe('prototype keys', () => {
    it.each([
      ['{"__proto__": {"polluted": true}}', 'Bundle.__proto__'],
      ['{"constructor": {"prototype": {"polluted": true}}}', 'Bundle.constructor'],
      ['{"prototype": 1}', 'Bundle.prototype'],
    ])('refuses %s on the Bundle', (json, expression) => {
      const input: unknown = JSON.parse(`{${json.slice(1, -1)},${JSON.stringify(fixture()).slice(1)}`);
      expect(issuesOf(input)).toEqual([expect.objectContaining({ code: 'invalid', expression })]);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('refuses __proto__ deep inside a resource, at its FHIRPath', () => {
      const json = JSON.stringify(fixture()).replace('"postalCode"', '"__proto__":{"polluted":true},"postalCode"');
      expect(issuesOf(JSON.parse(json))).toEqual([expect.objectContaining({ code: 'invalid', expression: 'Bundle.entry[1].resource.address[0].__proto__' })]);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });
  });

  describe('nesting', () => {
    /** `levels` extensions, each inside the one before (an object in an array per level): R4-valid at any depth. */
    const nested = (levels: number) => {
      let value: unknown = [{ url: 'https://example.org/fhir/StructureDefinition/note', valueString: 'bottom' }];
      for (let level = 1; level < levels; level++) value = [{ url: 'https://example.org/fhir/StructureDefinition/note', extension: value }];
      return value;
    };

    it(`accepts extensions nested up to ${MAX_NESTING_DEPTH} levels in all`, () => {
      // Bundle is level 1, entry 2, entry[0] 3, resource 4, extension 5: each extension adds two
      // levels (its object and its extension array), so the 14th extension's object is level 32.
      expect(issuesOf(setAt(fixture(), 'entry[0].resource.extension', nested((MAX_NESTING_DEPTH - 4) / 2)))).toEqual([]);
    });

    it('reports the first level too deep once, without recursing further', () => {
      const issues = issuesOf(setAt(fixture(), 'entry[0].resource.extension', nested(100_000)));
      expect(issues).toEqual([
        expect.objectContaining({ code: 'structure', expression: expect.stringMatching(/^Bundle\.entry\[0\]\.resource(\.extension\[0\])+\.extension$/) }),
      ]);
    });

    it('reports a cyclic structure instead of looping', () => {
      const input = fixture();
      const resource = (input['entry'] as { resource: Record<string, unknown> }[])[0]!.resource;
      resource['contained'] = [resource];
      expect(issuesOf(input)).toContainEqual(expect.objectContaining({ code: 'structure' }));
    });
  });

  describe('strings', () => {
    it(`accepts a note of ${MAX_STRING_LENGTH} characters`, () => {
      expect(issuesOf(setAt(fixture(), 'entry[0].resource.note[0].text', 'x'.repeat(MAX_STRING_LENGTH)))).toEqual([]);
    });

    it('reports a longer note as too-long', () => {
      expect(issuesOf(setAt(fixture(), 'entry[0].resource.note[0].text', 'x'.repeat(MAX_STRING_LENGTH + 1)))).toEqual([
        expect.objectContaining({ code: 'too-long', expression: 'Bundle.entry[0].resource.note[0].text' }),
      ]);
    });

    it('reports a 5 MB string in a property the profile does not name', () => {
      expect(issuesOf(setAt(fixture(), 'entry[3].resource.text', { status: 'generated', div: 'x'.repeat(5_000_000) }))).toEqual([
        expect.objectContaining({ code: 'too-long', expression: 'Bundle.entry[3].resource.text.div' }),
      ]);
    });
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a bigint', BigInt(1)],
    ['a symbol', Symbol('x')],
    ['a function', () => 1],
  ])('reports %s, which JSON cannot carry, as a structure issue', (_, value) => {
    expect(issuesOf(setAt(fixture(), 'entry[7].resource.extension', [value]))).toEqual([
      expect.objectContaining({ code: 'structure', expression: 'Bundle.entry[7].resource.extension[0]' }),
    ]);
  });

  describe('counts of repeating elements (bounded work per request)', () => {
    const times = (count: number, item: unknown) => Array.from({ length: count }, () => structuredClone(item));
    const firstOf = (path: string) => {
      let node: unknown = fixture();
      for (const segment of path.split(/\.|(?=\[)/)) node = (node as Record<string, unknown>)[segment.startsWith('[') ? segment.slice(1, -1) : segment];
      return (node as unknown[] | undefined)?.[0];
    };
    it.each([
      ['performers', 'entry[0].resource.performer', 'Bundle.entry[0].resource.performer', 100],
      ['codings of a concept', 'entry[0].resource.code.coding', 'Bundle.entry[0].resource.code.coding', 10],
      ['notes', 'entry[0].resource.note', 'Bundle.entry[0].resource.note', 20],
      ['entries', 'entry', 'Bundle.entry', 200],
      ['items of any other element', 'entry[0].resource.extension', 'Bundle.entry[0].resource.extension', 100],
    ])('refuses more %s than the bound with one too-long issue at the element, without looking at each', (_, path, expression, bound) => {
      const item = firstOf(path) ?? { url: 'https://example.org/x', valueString: 'x' };
      const over = issuesOf(setAt(fixture(), path, times(bound + 1, item)));
      expect(over).toContainEqual({ severity: 'error', code: 'too-long', diagnostics: expect.stringContaining(`${bound + 1} items`), expression });
      expect(over.filter((issue) => issue.expression?.startsWith(`${expression}[`))).toEqual([]);
      const at = issuesOf(setAt(fixture(), path, times(bound, item)));
      expect(at.filter((issue) => issue.code === 'too-long')).toEqual([]);
    });

    it('answers 40,000 made-up performers with one issue, not 40,000', () => {
      const performers = Array.from({ length: 40_000 }, (_, index) => ({ reference: `urn:uuid:00000000-0000-4000-8000-${String(index).padStart(12, '0')}` }));
      const issues = issuesOf(setAt(fixture(), 'entry[0].resource.performer', performers));
      expect(issues.filter((issue) => issue.expression?.startsWith('Bundle.entry[0].resource.performer'))).toEqual([
        expect.objectContaining({ code: 'too-long', expression: 'Bundle.entry[0].resource.performer' }),
      ]);
      expect(issues.length).toBeLessThanOrEqual(MAX_ISSUES + 1);
    });

    it('refuses a DocumentReference with more than 10 attachments, and a document bundle with more than 21 entries', () => {
      const documents = JSON.parse(JSON.stringify(documentBundle())) as Record<string, unknown>;
      const attachment = (documents as { entry: { resource: { content: unknown[] } }[] }).entry[1]!.resource.content[0];
      const result = validateDocumentBundle(setAt(structuredClone(documents), 'entry[1].resource.content', times(11, attachment)), options);
      expect(result.ok ? [] : result.issues).toContainEqual(expect.objectContaining({ code: 'too-long', expression: 'Bundle.entry[1].resource.content' }));
      const entry = (documents as { entry: unknown[] }).entry[1];
      const many = validateDocumentBundle(setAt(structuredClone(documents), 'entry', times(22, entry)), options);
      expect(many.ok ? [] : many.issues).toContainEqual(expect.objectContaining({ code: 'too-long', expression: 'Bundle.entry' }));
    });
  });

  it(`lists at most ${MAX_ISSUES} issues and says how many more there are`, () => {
    // 100 extensions (the bound) on each of ten resources, each with a forbidden key.
    const garbage = () => Array.from({ length: 100 }, () => JSON.parse('{"url": "https://example.org/x", "__proto__": 0}') as unknown);
    const bundle = fixture();
    for (let entry = 0; entry < 10; entry++) setAt(bundle, `entry[${entry}].resource.extension`, garbage());
    const issues = issuesOf(bundle);
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues.at(-1)).toEqual(expect.objectContaining({ code: 'informational', diagnostics: '900 further issues are not listed' }));
  });

  it('never throws for randomly damaged bundles', () => {
    const replacements: unknown[] = [null, 0, -1, 1.5, '', 'x', true, [], {}, [null], { reference: 'urn:uuid:x' }, '2026-13-45'];
    // A damage: a path of choices down the bundle (each taken modulo the keys there) and what replaces the node it ends at.
    const damage = fc.tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), fc.constantFrom(...replacements));
    fc.assert(
      fc.property(fc.boolean(), fc.array(damage, { minLength: 1, maxLength: 4 }), (admission, damages) => {
        const input = admission ? fixture() : (JSON.parse(JSON.stringify(documentBundle())) as Record<string, unknown>);
        for (const [path, replacement] of damages) damageAt(input, path, replacement);
        for (const [, validate] of validators) {
          const result = validate(input);
          expect(result.ok || result.issues.length > 0).toBe(true);
        }
        expect(['admission-request', 'document', 'unknown']).toContain(bundleKind(input, DEFAULT_PROFILE_BASE));
      }),
      { seed: 20261121, numRuns: 300 },
    );
  });
});

/** Walks down `root` by `path` (each step picks a key modulo the keys there) and replaces the node where it ends. */
function damageAt(root: Record<string, unknown>, path: readonly number[], replacement: unknown): void {
  let node: Record<string | number, unknown> = root;
  for (const [step, choice] of path.entries()) {
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, index) => index) : Object.keys(node);
    const key = keys[choice % Math.max(keys.length, 1)];
    if (key === undefined) return;
    const child = node[key];
    if (step < path.length - 1 && typeof child === 'object' && child !== null) {
      node = child as Record<string | number, unknown>;
      continue;
    }
    node[key] = replacement;
    return;
  }
}

describe('text PostgreSQL could never store', () => {
  it.each([
    ['U+0000', 'Einzel\u0000zimmer'],
    ['a lone high surrogate', 'Einzel\uD83Dzimmer'],
    ['a lone low surrogate', 'Einzel\uDE00zimmer'],
  ])('is refused where it appears (%s)', (_name, text) => {
    const bundle = setAt(fixture(), 'entry[0].resource.note[0].text', text);
    expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code: 'value', expression: 'Bundle.entry[0].resource.note[0].text' })]);
  });

  it('lets a complete surrogate pair (an emoji) through', () => {
    expect(issuesOf(setAt(fixture(), 'entry[0].resource.note[0].text', 'Einzelzimmer \uD83D\uDE00'))).toEqual([]);
  });

  it('refuses a request identifier longer than 2048 characters or not ASCII', () => {
    const long = `https://referrer.example/fhir/ServiceRequest/${'x'.repeat(2048)}`;
    expect(issuesOf(setAt(fixture(), 'entry[0].resource.identifier[0].value', long))).toEqual([
      expect.objectContaining({ expression: 'Bundle.entry[0].resource.identifier[0].value' }),
    ]);
    expect(issuesOf(setAt(fixture(), 'entry[0].resource.identifier[0].value', 'https://referrer.example/fhir/ServiceRequest/straße'))).toHaveLength(1);
  });
});
