import { MAX_DIAGNOSTICS_LENGTH } from '@bedrequest/fhir-model';
import { classifyError } from './classify';
import { outcomeOf } from './fhir-outcome';
import { HttpError } from './http-error';

describe('outcomeOf', () => {
  it('answers a classified error with one issue of the type of its code', () => {
    expect(outcomeOf(new HttpError('gone', 'the patient data of this request was erased'))).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'deleted', diagnostics: 'the patient data of this request was erased' }],
    });
  });

  it('answers an error that names what it refused with its issues, codes and expressions as they are', () => {
    const refused = new HttpError('invalid_request', 'identifier: is required', {
      issues: [{ code: 'required', diagnostics: 'is required', expression: 'identifier' }],
    });
    expect(outcomeOf(refused)).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'required', diagnostics: 'is required', expression: ['identifier'] }],
    });
  });

  it('stays small when the message quotes a header of the request (a 16 kB charset)', () => {
    const refused = classifyError({ type: 'charset.unsupported', status: 415, charset: 'x'.repeat(16_000) });
    const [issue] = outcomeOf(refused).issue ?? [];
    expect(issue?.code).toBe('not-supported');
    expect(issue?.diagnostics?.length).toBeLessThan(MAX_DIAGNOSTICS_LENGTH + 30);
    expect(issue?.diagnostics).toMatch(/^unsupported charset "XXXX.*…\(16022 characters\)$/);
  });
});
