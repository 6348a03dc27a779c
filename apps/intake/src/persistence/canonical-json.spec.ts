import { canonicalJson } from './canonical-json';

describe('canonical JSON', () => {
  it('sorts object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}');
  });
});
