import { excerpt, quoted } from './excerpt';

describe('excerpt', () => {
  it('keeps a short value whole', () => {
    expect(excerpt('orthopedics')).toBe('orthopedics');
    expect(quoted('x'.repeat(64))).toBe(`'${'x'.repeat(64)}'`);
  });

  it('cuts a long value to 64 characters and says how long it was', () => {
    expect(quoted('x'.repeat(3 * 1024 * 1024))).toBe(`'${'x'.repeat(64)}…(3145728 characters)'`);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'x'.repeat(63)}😀${'x'.repeat(10)}`;
    expect(excerpt(text)).toBe(`${'x'.repeat(63)}…(75 characters)`);
  });

  it('quotes what is not a string as text', () => {
    expect(excerpt(42)).toBe('42');
    expect(excerpt(undefined)).toBe('undefined');
  });
});
