import { nestedDeeperThan } from './json-depth';

const json = (text: string) => Buffer.from(text);
const nested = (depth: number, [open, close]: [string, string] = ['[', ']']) => `${open.repeat(depth)}1${close.repeat(depth)}`;

describe('nestedDeeperThan', () => {
  it('counts arrays and objects alike', () => {
    expect(nestedDeeperThan(json(nested(3)), 3)).toBe(false);
    expect(nestedDeeperThan(json(nested(4)), 3)).toBe(true);
    expect(nestedDeeperThan(json(nested(4, ['{"a":', '}'])), 3)).toBe(true);
    expect(nestedDeeperThan(json('{"a":[1,{"b":[]}],"c":{"d":2}}'), 4)).toBe(false);
    expect(nestedDeeperThan(json('{"a":[1,{"b":[]}],"c":{"d":2}}'), 3)).toBe(true);
  });

  it('does not count brackets in strings, whatever their escapes', () => {
    expect(nestedDeeperThan(json(`{"a":"${'[{'.repeat(100)}"}`), 1)).toBe(false);
    expect(nestedDeeperThan(json(`{"a":"\\"[[[[\\"","b":"\\\\"}`), 1)).toBe(false);
    // After an escaped backslash the quote ends the string: the brackets after it count.
    expect(nestedDeeperThan(json(`{"a":"\\\\",${'"b":['.repeat(3)}${']'.repeat(3)}}`), 3)).toBe(true);
    expect(nestedDeeperThan(json(`{"ä€𝄞":"[[[","b":[]}`), 2)).toBe(false);
  });

  it('stops at the first level too deep of a body nested a million levels', () => {
    const started = performance.now();
    expect(nestedDeeperThan(json(nested(1_000_000)), 64)).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('ends at an unterminated string or unbalanced brackets without an error (JSON.parse refuses them)', () => {
    expect(nestedDeeperThan(json('{"a":"[[[['), 1)).toBe(false);
    expect(nestedDeeperThan(json(']]]]{"a":1}'), 1)).toBe(false);
  });
});
