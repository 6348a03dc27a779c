import { MAX_DIAGNOSTICS_LENGTH } from '@bedrequest/fhir-model';
import { classifyError } from './classify';
import { outcomeOf } from './fhir-outcome';
import { HttpError } from './http-error';

describe('outcomeOf', () => {
  it('answers a classified error with the issue type of its code and the expression', () => {
    expect(outcomeOf(new HttpError('invalid_request', 'the body is not valid JSON'), 'Bundle')).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'invalid', diagnostics: 'the body is not valid JSON', expression: ['Bundle'] }],
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
