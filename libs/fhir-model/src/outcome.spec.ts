import { badRequest, conflict, forbidden, getStatus, MAX_DIAGNOSTICS_LENGTH, outcome, throttled, unavailable } from './outcome';

describe('OperationOutcome builders', () => {
  it('carry severity, code, diagnostics and the FHIRPath expression', () => {
    expect(badRequest('value is required', 'Bundle.entry[0].resource.status')).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'invalid', diagnostics: 'value is required', expression: ['Bundle.entry[0].resource.status'] }],
    });
  });

  it.each([
    [badRequest('x'), 400],
    [forbidden('x'), 403],
    [conflict('x'), 409],
    [throttled(), 429],
    [unavailable('x'), 503],
    [outcome([{ code: 'not-found', diagnostics: 'x' }]), 404],
    [outcome([{ code: 'too-long', diagnostics: 'x' }]), 400],
  ])('map to the HTTP status of their first issue (%#)', (result, status) => {
    expect(getStatus(result)).toBe(status);
  });

  it(`cut diagnostics to ${MAX_DIAGNOSTICS_LENGTH} characters, whatever a message passed on quotes`, () => {
    const [issue] = badRequest(`unsupported charset "${'x'.repeat(16_000)}"`).issue ?? [];
    expect(issue?.diagnostics).toHaveLength(MAX_DIAGNOSTICS_LENGTH + '…(16022 characters)'.length);
    expect(issue?.diagnostics?.endsWith('…(16022 characters)')).toBe(true);
  });
});
