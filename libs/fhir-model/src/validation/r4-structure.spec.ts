import type { Bundle } from '@medplum/fhirtypes';
import { validateAdmissionRequestBundle } from '../admission-request-bundle';
import { validateDocumentBundle } from '../document-bundle';
import type { Issue } from '../outcome';
import { DEFAULT_PROFILE_BASE, MASKED_NULL_FLAVOR, NULL_FLAVOR_EXTENSION } from '../systems';
import { admissionRequestBundle, documentBundle, setAt } from '../testing';
import { nearestName } from './r4-structure';
import { MAX_ISSUES } from './result';

/** Unknown elements, R4 cardinalities and primitive formats, as the validators report them. */

const options = { profileBase: DEFAULT_PROFILE_BASE };
const admissionIssues = (bundle: unknown): Issue[] => {
  const result = validateAdmissionRequestBundle(bundle, options);
  return result.ok ? [] : result.issues;
};
const documentIssues = (bundle: unknown): Issue[] => {
  const result = validateDocumentBundle(bundle, options);
  return result.ok ? [] : result.issues;
};
const admission = () => JSON.parse(JSON.stringify(admissionRequestBundle())) as Bundle;
const document = () => JSON.parse(JSON.stringify(documentBundle())) as Bundle;
const SR = 'entry[0].resource';
const PATIENT = 'entry[1].resource';

describe('the FHIR R4 structure check', () => {
  describe('refuses unknown elements, one structure issue each, at their FHIRPath', () => {
    it.each([
      [
        'a misspelt ServiceRequest element',
        `${SR}.occurenceDateTime`,
        '2026-12-01',
        "unknown element 'occurenceDateTime' in ServiceRequest (did you mean 'occurrenceDateTime'?)",
      ],
      ['notes instead of note', `${SR}.notes`, [{ text: 'Einzelzimmer' }], "unknown element 'notes' in ServiceRequest (did you mean 'note'?)"],
      ['Patient.favouriteColour', `${PATIENT}.favouriteColour`, 'blue', "unknown element 'favouriteColour' in Patient"],
      ['a top-level foo', 'foo', 'bar', "unknown element 'foo' in Bundle"],
      ['an unknown key inside a datatype', `${SR}.code.coding[0].sytem`, 'urn:x', "unknown element 'sytem' in Coding (did you mean 'system'?)"],
      ['an unknown key beside the extensions of a primitive', `${PATIENT}.name[0]._family.colour`, 'blue', "unknown element 'colour' in Element"],
      [
        'an unknown key inside an extension',
        `${PATIENT}.name[0]._family.extension[0].valueCodes`,
        'MSK',
        "unknown element 'valueCodes' in Extension (did you mean 'valueCode'?)",
      ],
      ['an element of another resource type', `${PATIENT}.intent`, 'proposal', "unknown element 'intent' in Patient"],
      ['an entry element misplaced on the Bundle', 'fullUrl', 'urn:uuid:0d9c0e4a-3b4f-4a8e-9a57-1f2d3c4b5a69', "unknown element 'fullUrl' in Bundle"],
    ])('%s', (_, at, value, diagnostics) => {
      const expression = `Bundle.${at.replace('._family', '.family')}`;
      expect(admissionIssues(setAt(admission(), at, value))).toEqual([{ severity: 'error', code: 'structure', diagnostics, expression }]);
    });

    it('reports each of several unknown elements', () => {
      const bundle = setAt(setAt(admission(), `${SR}.occurenceDateTime`, '2026-12-01'), `${PATIENT}.favouriteColour`, 'blue');
      // In the order of the JSON: `foo` was added after `entry`.
      expect(admissionIssues(setAt(bundle, 'foo', 1)).map((issue) => issue.expression)).toEqual([
        'Bundle.entry[0].resource.occurenceDateTime',
        'Bundle.entry[1].resource.favouriteColour',
        'Bundle.foo',
      ]);
    });

    it('refuses them in a DocumentBundle too', () => {
      expect(documentIssues(setAt(document(), 'entry[1].resource.content[0].attachment.titel', 'Arztbrief'))).toEqual([
        expect.objectContaining({
          code: 'structure',
          expression: 'Bundle.entry[1].resource.content[0].attachment.titel',
          diagnostics: expect.stringContaining("did you mean 'title'?"),
        }),
      ]);
    });
  });

  describe('accepts what R4 allows beyond the profiles', () => {
    it.each([
      [
        'a masked family name (primitive extension)',
        `${PATIENT}.name[0]._family`,
        { extension: [{ url: NULL_FLAVOR_EXTENSION, valueCode: MASKED_NULL_FLAVOR }] },
      ],
      [
        'an id on a primitive extension',
        `${PATIENT}.name[0]._family`,
        { id: 'f1', extension: [{ url: NULL_FLAVOR_EXTENSION, valueCode: MASKED_NULL_FLAVOR }] },
      ],
      ['an R4 element the profile does not name', `${PATIENT}.active`, true],
      ['an extension on a resource', `${SR}.extension`, [{ url: 'https://example.org/fhir/StructureDefinition/x', valueBoolean: true }]],
      ['a choice element of another type', 'entry[7].resource.effectiveDateTime', '2026-11-18T10:00:00+01:00'],
      ['a backbone element', `${PATIENT}.contact`, [{ relationship: [{ text: 'Tochter' }], name: { family: 'Muster' } }]],
      ['a contained resource of a known type', `${SR}.contained`, [{ resourceType: 'Organization', id: 'o1', name: 'Hausarzt' }]],
      ['a content reference (Bundle.entry.link is Bundle.link)', 'entry[0].link', [{ relation: 'self', url: 'https://example.org/x' }]],
      ['a no-break space in a string', `${SR}.note[0].text`, 'Einzelzimmer\u00a0erwünscht'],
      ['null in a primitive array whose _name array carries that item', `${PATIENT}.name[0].prefix`, ['Dr.', null]],
    ])('%s', (_, at, value) => {
      const bundle = setAt(admission(), at, value);
      if (at.endsWith('.prefix')) setAt(bundle, `${PATIENT}.name[0]._prefix`, [null, { extension: [{ url: 'https://example.org/x', valueString: 'med.' }] }]);
      expect(admissionIssues(bundle)).toEqual([]);
    });
  });

  describe('enforces the elements R4 requires', () => {
    it('of a Composition with only an id', () => {
      const bundle = setAt(document(), 'entry[0].resource', { resourceType: 'Composition', id: 'c1' });
      expect(documentIssues(bundle)).toEqual(
        ['status', 'type', 'date', 'author', 'title'].map((element) =>
          expect.objectContaining({ code: 'required', diagnostics: `${element} is required`, expression: `Bundle.entry[0].resource.${element}` }),
        ),
      );
    });

    it('of a choice element, satisfied by any of its types', () => {
      const relatesTo = (target: object) => setAt(document(), 'entry[0].resource.relatesTo', [{ code: 'replaces', ...target }]);
      expect(documentIssues(relatesTo({ targetIdentifier: { value: 'x' } }))).toEqual([]);
      expect(documentIssues(relatesTo({}))).toEqual([
        expect.objectContaining({
          code: 'required',
          diagnostics: 'target[x] is required (one of targetIdentifier, targetReference)',
          expression: 'Bundle.entry[0].resource.relatesTo[0].target',
        }),
      ]);
    });

    it('of a DocumentReference: status and content', () => {
      expect(documentIssues(setAt(document(), 'entry[1].resource.status', undefined))).toEqual([
        expect.objectContaining({ code: 'required', expression: 'Bundle.entry[1].resource.status' }),
      ]);
    });

    it('inside datatypes (Extension.url), and a primitive with only extensions counts as present', () => {
      expect(admissionIssues(setAt(admission(), `${PATIENT}.name[0]._family.extension[0].url`, undefined))).toContainEqual(
        expect.objectContaining({ code: 'required', expression: 'Bundle.entry[1].resource.name[0].family.extension[0].url' }),
      );
      const withoutStatus = setAt(document(), 'entry[0].resource.status', undefined);
      setAt(withoutStatus, 'entry[0].resource._status', {
        extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/data-absent-reason', valueCode: 'unknown' }],
      });
      expect(documentIssues(withoutStatus)).toEqual([]);
    });

    it('once, in the profile schema words, where the profile requires it too', () => {
      expect(admissionIssues(setAt(admission(), `${SR}.status`, undefined))).toEqual([
        expect.objectContaining({ code: 'required', diagnostics: 'status is required', expression: 'Bundle.entry[0].resource.status' }),
      ]);
    });
  });

  describe('checks cardinality and JSON types', () => {
    it.each([
      ['one value where R4 allows one', `${PATIENT}.active`, [true], 'structure', 'active takes a single value in FHIR R4, not an array'],
      [
        'one value where R4 takes an array',
        'entry[7].resource.category',
        { text: 'vital-signs' },
        'structure',
        'category must be an array (FHIR R4 allows it more than once)',
      ],
      ['an empty object', `${PATIENT}.maritalStatus`, {}, 'structure', 'an empty object is not allowed in FHIR JSON'],
      ['an empty array', `${PATIENT}.extension`, [], 'structure', 'extension must not be an empty array'],
      ['null', `${PATIENT}.active`, null, 'structure', 'null is not allowed in FHIR JSON'],
      ['null in an array without its _name partner', `${PATIENT}.name[0].prefix`, ['Dr.', null], 'structure', 'null is not allowed in FHIR JSON'],
      ['a boolean as a string', `${PATIENT}.active`, 'yes', 'structure', 'active must be a JSON boolean (FHIR boolean)'],
      ['a number as a string', 'entry[2].resource.order', '1', 'structure', 'order must be a JSON number (FHIR positiveInt)'],
      ['an object where a primitive belongs', `${SR}.authoredOn`, { value: '2026-11-21' }, 'structure', 'authoredOn must be a JSON string (FHIR dateTime)'],
      ['a string where a datatype belongs', `${PATIENT}.maritalStatus`, 'married', 'structure', 'maritalStatus must be a JSON object (FHIR CodeableConcept)'],
      ['a value outside the R4 regex', `${SR}.authoredOn`, '21.11.2026', 'value', 'authoredOn is not a valid FHIR dateTime'],
      ['a code with a double space', `${PATIENT}.language`, 'de  DE', 'value', 'language is not a valid FHIR code'],
      ['an empty string', `${PATIENT}.language`, '', 'value', 'language must not be an empty string (FHIR JSON)'],
      ['a positiveInt of 0', 'entry[2].resource.order', 0, 'value', 'order is not a valid FHIR positiveInt'],
      [
        'a resource of a type no bundle carries',
        `${SR}.contained`,
        [{ resourceType: 'Practitioner', id: 'p1' }],
        'code-invalid',
        "resourceType 'Practitioner' is not one a bundle of this service may carry",
      ],
    ])('%s', (_, at, value, code, diagnostics) => {
      const issues = admissionIssues(setAt(admission(), at, value));
      expect(issues).toHaveLength(1);
      expect(issues[0]).toEqual(expect.objectContaining({ code, diagnostics: expect.stringContaining(diagnostics) }));
    });

    it('reports the wrong JSON type at the element, once, when the profile schema reports it too', () => {
      expect(admissionIssues(setAt(admission(), `${PATIENT}.gender`, 5))).toEqual([expect.objectContaining({ expression: 'Bundle.entry[1].resource.gender' })]);
    });
  });

  describe('keeps its findings small', () => {
    it('names a 3 MB unknown element by an excerpt, in the diagnostics and the expression', () => {
      const key = 'x'.repeat(3_000_000);
      const [found, ...rest] = admissionIssues(setAt(admission(), `${SR}.${key}`, 1));
      expect(rest).toEqual([]);
      expect(found?.code).toBe('structure');
      expect(found?.diagnostics).toBe(`unknown element '${'x'.repeat(64)}…(3000000 characters)' in ServiceRequest`);
      expect(found?.expression).toBe(`Bundle.entry[0].resource.\`${'x'.repeat(64)}…(3000000 characters)\``);
    });

    it(`lists at most ${MAX_ISSUES} unknown elements and counts the rest`, () => {
      const patient = admission();
      for (let index = 0; index < 500; index++) setAt(patient, `${PATIENT}.unknown${index}`, index);
      const issues = admissionIssues(patient);
      expect(issues).toHaveLength(MAX_ISSUES + 1);
      expect(issues.at(-1)).toEqual(expect.objectContaining({ code: 'informational', diagnostics: '400 further issues are not listed' }));
    });
  });
});

describe('nearestName', () => {
  it.each([
    ['occurenceDateTime', 'occurrenceDateTime'],
    ['notes', 'note'],
    ['sytem', 'system'],
    ['favouriteColour', undefined],
    ['_famly', '_family'],
    ['famly', 'family'],
  ])('suggests for %s: %s', (key, expected) => {
    expect(nearestName(key, ['note', 'occurrenceDateTime', 'system', 'family', '_family', 'code'])).toBe(expected);
  });
});
