import { exceededShapeLimit, type JsonShapeLimits } from './json-shape';

const json = (text: string) => Buffer.from(text);
const nested = (depth: number, [open, close]: [string, string] = ['[', ']']) => `${open.repeat(depth)}1${close.repeat(depth)}`;

/** Whether `text` nests deeper than `depth` (members unbounded). */
const nestedDeeperThan = (text: Buffer, depth: number) => exceededShapeLimit(text, { depth, members: Number.MAX_SAFE_INTEGER }) === 'depth';
const exceeded = (text: string, limits: JsonShapeLimits) => exceededShapeLimit(json(text), limits);

describe('exceededShapeLimit', () => {
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

  it('finds a body nested a million levels too deep', () => {
    expect(nestedDeeperThan(json(nested(1_000_000)), 64)).toBe(true);
    expect(nestedDeeperThan(json(nested(1_000_000, ['{"a":', '}'])), 999_999)).toBe(true);
    expect(nestedDeeperThan(json(nested(1_000_000, ['{"a":', '}'])), 1_000_000)).toBe(false);
  });

  it('reads strings of every length and escapes at every place as JSON.parse does', () => {
    // A string with `\\` or `\"` at each offset around where it is no longer read byte by byte,
    // and brackets in it and after it: the depth found must be that of the parsed value.
    for (let length = 0; length < 140; length++) {
      for (const escape of ['\\\\', '\\"', '\\\\\\"', 'ä']) {
        const text = `${'x'.repeat(length)}${escape}[[{{${'y'.repeat(length % 7)}`;
        const body = `{"a":"${text}","b":[[{"c":"${escape}"}]]}`;
        expect([length, escape, depthOf(JSON.parse(body))]).toEqual([length, escape, 4]);
        expect([length, escape, nestedDeeperThan(json(body), 4), nestedDeeperThan(json(body), 3)]).toEqual([length, escape, false, true]);
      }
    }
  });

  it('counts the members of each array and object, commas in strings not', () => {
    const limits = { depth: 10, members: 3 };
    expect(exceeded('[1,2,3]', limits)).toBeUndefined();
    expect(exceeded('[1,2,3,4]', limits)).toBe('members');
    expect(exceeded('{"a":1,"b":2,"c":3}', limits)).toBeUndefined();
    expect(exceeded('{"a":1,"b":2,"c":3,"d":4}', limits)).toBe('members');
    expect(exceeded('[[1,2,3],[1,2,3],{"a":[1,2,3],"b":"x,y,z,w"}]', limits)).toBeUndefined();
    expect(exceeded('[[1,2,3],[1,2,3],{"a":[1,2,3],"b":"x,y,z,w"},[]]', limits)).toBe('members');
    expect(exceeded('{"a":[1,2,3],"b":[4,5],"c":{"d":[6,7,8,9]}}', limits)).toBe('members');
  });

  it('ends at an unterminated string or unbalanced brackets without an error (JSON.parse refuses them)', () => {
    expect(nestedDeeperThan(json('{"a":"[[[['), 1)).toBe(false);
    expect(nestedDeeperThan(json(']]]]{"a":1}'), 1)).toBe(false);
  });
});

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}
