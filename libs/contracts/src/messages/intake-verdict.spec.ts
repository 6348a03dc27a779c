import { legacyVerdictStatus, withLegacyStatus, type IntakeVerdict } from './intake-verdict';

describe('the deprecated status of intake.verdict.v1', () => {
  it.each([
    ['a bundle taken', { outcome: 'accepted', issues: [] }, 202],
    ['a bundle identical to the latest version', { outcome: 'unchanged', issues: [] }, 202],
    ['an invalid bundle', { outcome: 'rejected', refusal: 'invalid', issues: [] }, 400],
    ["another referrer's request", { outcome: 'rejected', refusal: 'forbidden', issues: [] }, 403],
    ["an unknown request or another clinic's Task", { outcome: 'rejected', refusal: 'not-found', issues: [] }, 404],
    ['a transition the state does not allow', { outcome: 'rejected', refusal: 'conflict', issues: [] }, 409],
  ] as [string, IntakeVerdict, number][])('is what gateways before the refusal field answered for %s', (_name, verdict, status) => {
    expect(legacyVerdictStatus(verdict)).toBe(status);
    expect(withLegacyStatus(verdict)).toEqual({ status, ...verdict });
  });

  it('is 200 for an applied clinic answer, which carries the Task', () => {
    expect(legacyVerdictStatus({ outcome: 'accepted', issues: [], task: {} as NonNullable<IntakeVerdict['task']> })).toBe(200);
  });
});
