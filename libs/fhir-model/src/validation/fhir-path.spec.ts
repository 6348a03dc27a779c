import { elementName, fhirPath } from './fhir-path';

describe('fhirPath', () => {
  it.each([
    [[], 'Bundle'],
    [['entry', 0, 'resource', 'identifier', 0, 'value'], 'Bundle.entry[0].resource.identifier[0].value'],
    [['entry', 1, 'resource', 'name', 0, '_family', 'extension', 0, 'valueCode'], 'Bundle.entry[1].resource.name[0].family.extension[0].valueCode'],
    [['__proto__'], 'Bundle.__proto__'],
    [['odd key', 'a.b', 'back`tick'], 'Bundle.`odd key`.`a.b`.`back\\`tick`'],
  ])('writes %j as %s', (segments, expression) => {
    expect(fhirPath(segments)).toBe(expression);
  });

  it('names the element a path ends in, skipping indexes', () => {
    expect(elementName(['entry', 0, 'resource', 'performer', 1])).toBe('performer');
    expect(elementName([])).toBe('Bundle');
  });
});
