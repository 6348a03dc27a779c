import { validateAdmissionRequestBundle } from './admission-request-bundle';
import { admissionRequestSummary } from './admission-request-summary';
import { DEFAULT_PROFILE_BASE, fhirSystems } from './systems';
import { admissionRequestBundle, setAt } from './testing';

const { answerDeadlineExtension } = fhirSystems(DEFAULT_PROFILE_BASE);
const now = new Date('2026-12-07T10:00:00Z');
const validate = (bundle: unknown) => validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE, now: () => now });
const withDeadline = (...extension: unknown[]) => {
  const bundle = admissionRequestBundle({});
  setAt(bundle, 'entry[0].resource.extension', extension);
  return bundle;
};
const deadline = (valueDateTime: unknown) => ({ url: answerDeadlineExtension, valueDateTime });

describe('the answer-deadline extension (docs/api.md, "Answer deadlines")', () => {
  it('is read into the summary as sent, and absent without it', () => {
    const result = validate(withDeadline(deadline('2026-12-09T16:00:00+01:00')));
    expect(result.ok && admissionRequestSummary(result.bundle).answerDeadline).toBe('2026-12-09T16:00:00+01:00');
    const without = validate(admissionRequestBundle({}));
    expect(without.ok && 'answerDeadline' in admissionRequestSummary(without.bundle)).toBe(false);
  });

  it('may lie in the past (intake decides whether it changed) and up to 90 days ahead', () => {
    expect(validate(withDeadline(deadline('2026-12-01T08:00:00Z'))).ok).toBe(true);
    expect(validate(withDeadline(deadline('2027-03-07T10:00:00Z'))).ok).toBe(true);
  });

  it.each([
    ['a date alone', deadline('2026-12-09'), 'value', 'Bundle.entry[0].resource.extension[0].valueDateTime'],
    ['no seconds', deadline('2026-12-09T16:00+01:00'), 'value', 'Bundle.entry[0].resource.extension[0].valueDateTime'],
    ['no offset', deadline('2026-12-09T16:00:00'), 'value', 'Bundle.entry[0].resource.extension[0].valueDateTime'],
    ['no calendar date', deadline('2026-02-30T16:00:00Z'), 'value', 'Bundle.entry[0].resource.extension[0].valueDateTime'],
    ['more than 90 days ahead', deadline('2027-03-07T10:00:01Z'), 'value', 'Bundle.entry[0].resource.extension[0].valueDateTime'],
    ['no value', { url: answerDeadlineExtension }, 'required', 'Bundle.entry[0].resource.extension[0].valueDateTime'],
  ])('refuses %s, naming the element', (_, extension, code, expression) => {
    const result = validate(withDeadline(extension));
    expect(result.ok ? [] : result.issues).toEqual([expect.objectContaining({ code, expression })]);
  });

  it('refuses two of them', () => {
    const result = validate(withDeadline(deadline('2026-12-09T16:00:00Z'), deadline('2026-12-10T16:00:00Z')));
    expect(result.ok ? [] : result.issues).toEqual([expect.objectContaining({ code: 'invalid', expression: 'Bundle.entry[0].resource.extension[1]' })]);
  });
});
