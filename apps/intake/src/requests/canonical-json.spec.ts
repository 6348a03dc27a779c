import { canonicalHash, canonicalJson } from './canonical-json';

describe('canonical JSON', () => {
  it('sorts object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}');
  });

  it('gives the same hash whatever the key order, and another when an array is reordered', () => {
    expect(canonicalHash({ a: 1, b: [1, 2] })).toBe(canonicalHash({ b: [1, 2], a: 1 }));
    expect(canonicalHash({ a: 1, b: [1, 2] })).not.toBe(canonicalHash({ a: 1, b: [2, 1] }));
  });
});
