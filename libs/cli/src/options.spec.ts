import { UsageError, option } from './options';

describe('option', () => {
  it('a string option passes its text on, and refuses to be missing or blank', () => {
    const ik = option.string('<IK>');

    expect(ik.read('510000001', '--ik')).toBe('510000001');
    expect(() => ik.read(undefined, '--ik')).toThrow(new UsageError('missing option --ik'));
    expect(() => ik.read('  ', '--ik')).toThrow(new UsageError('missing option --ik'));
  });

  it('an optional option is undefined when not given, and passed on as given otherwise', () => {
    const from = option.string('YYYY-MM-DD').optional();

    expect(from).toMatchObject({ placeholder: 'YYYY-MM-DD', required: false });
    expect(from.read(undefined, '--from')).toBeUndefined();
    expect(from.read('2026-12-01', '--from')).toBe('2026-12-01');
  });

  it('an integer option reads a whole number within its range, or takes its default', () => {
    const limit = option.integer('<n>', { min: 1, max: 500 }).default(20);

    expect(limit.read(undefined, '--limit')).toBe(20);
    expect(limit.read('500', '--limit')).toBe(500);
    for (const text of ['0', '501', '2.5', 'many', '']) {
      expect(() => limit.read(text, '--limit')).toThrow(new UsageError(`--limit must be a whole number from 1 to 500, got "${text}"`));
    }
  });

  it('a choice option accepts one of its words and names them all otherwise', () => {
    const enabled = option.choice(['true', 'false']);

    expect(enabled.placeholder).toBe('true|false');
    expect(enabled.read('false', '--enabled')).toBe('false');
    expect(() => enabled.read('yes', '--enabled')).toThrow(new UsageError('--enabled must be true or false, got "yes"'));
    expect(() => option.choice(['a', 'b', 'c']).read('d', '--x')).toThrow('--x must be a, b, or c, got "d"');
  });
});
