import { MAX_DIAGNOSTICS_LENGTH, outcome } from './outcome';

describe('outcome', () => {
  it('carries severity, code, diagnostics and the FHIRPath expression', () => {
    expect(outcome([{ code: 'invalid', diagnostics: 'value is required', expression: 'Bundle.entry[0].resource.status' }])).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'invalid', diagnostics: 'value is required', expression: ['Bundle.entry[0].resource.status'] }],
    });
  });

  it('keeps a severity other than error, and leaves out an expression not given', () => {
    expect(outcome([{ severity: 'information', code: 'informational', diagnostics: 'queued' }])).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'information', code: 'informational', diagnostics: 'queued' }],
    });
  });

  it(`cuts diagnostics to ${MAX_DIAGNOSTICS_LENGTH} characters, whatever a message passed on quotes`, () => {
    const [issue] = outcome([{ code: 'invalid', diagnostics: `unsupported charset "${'x'.repeat(16_000)}"` }]).issue ?? [];
    expect(issue?.diagnostics).toHaveLength(MAX_DIAGNOSTICS_LENGTH + '…(16022 characters)'.length);
    expect(issue?.diagnostics?.endsWith('…(16022 characters)')).toBe(true);
  });
});
