import { requestNumberOf, taskIdPrefixOf } from './request-number';

describe('request numbers', () => {
  it('are the first eight characters of the Task id in two groups', () => {
    expect(requestNumberOf('3f9a12c0-7b1e-4c2d-9a55-0c7d2e1f4b6a')).toBe('3F9A-12C0');
  });

  it('are read back as a prefix of the Task id, hyphen and case aside', () => {
    expect(taskIdPrefixOf(' 3F9A-12c0 ')).toBe('3f9a12c0');
    expect(taskIdPrefixOf('3f9a')).toBe('3f9a');
    expect(taskIdPrefixOf('M54.5')).toBeUndefined();
    expect(taskIdPrefixOf('3f9')).toBeUndefined();
  });
});
