import { describeFhirIssues, expectValidFhir, fhirValidationIssues } from './fhir-validator';

describe('the outside FHIR R4 validator', () => {
  it('accepts a valid resource', () => {
    const outcome = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found', diagnostics: 'no such Task' }] };
    expect(() => expectValidFhir(outcome)).not.toThrow();
  });

  it('names every issue it finds in its error, with the context given', () => {
    const patient = { resourceType: 'Patient', favouriteColour: 'blue', name: [{ family: 'Muster', given: 'Erika' }], birthDate: '1.2.1950' };
    let message = '';
    try {
      expectValidFhir(patient, 'GET /Patient/1');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^GET \/Patient\/1: the FHIR R4 validator found \d+ error\(s\) in Patient:\n/);
    expect(message).toContain('Patient.favouriteColour');
    expect(message).toContain('Patient.birthDate');
    expect(message).toContain('Patient.name.given');
    expect(message.split('\n').length).toBe(fhirValidationIssues(patient).length + 1);
  });

  it('evaluates the base invariants', () => {
    const instanceWithoutImplementation = {
      resourceType: 'CapabilityStatement',
      status: 'active',
      date: '2026-11-22',
      kind: 'instance',
      fhirVersion: '4.0.1',
      format: ['json'],
      software: { name: 'x' },
      rest: [{ mode: 'server' }],
    };
    expect(describeFhirIssues(fhirValidationIssues(instanceWithoutImplementation))).toContain('cpb-14');
  });

  it('reports a resource the validator cannot read as an issue, not a crash', () => {
    expect(() => expectValidFhir({ resourceType: 'Patient', name: [{ family: 'Muster', _family: 3 }] }, 'GET /Patient/2')).toThrow(
      /GET \/Patient\/2: .*\nfatal structure: the validator could not read it: Primitive extension must be an object/,
    );
  });

  it('refuses what is not a resource at all', () => {
    expect(() => expectValidFhir([1, 2], 'a list')).toThrow(/a list: the FHIR R4 validator found 1 error\(s\) in the body/);
    expect(() => expectValidFhir({ resourceType: 'Nonsense' })).toThrow(/Invalid resource type/);
  });
});
