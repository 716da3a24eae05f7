import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every level, keeps array order, drops undefined like JSON.stringify', () => {
    const v = { b: [3, { z: 1, a: null }, 'x'], a: { d: true, c: 'é"\\' }, u: undefined, e: [], f: {} };
    expect(canonicalJson(v)).toBe('{"a":{"c":"é\\"\\\\","d":true},"b":[3,{"a":null,"z":1},"x"],"e":[],"f":{}}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(JSON.stringify({ a: 1, b: 2 }));
    expect(canonicalJson('s')).toBe('"s"');
    expect(canonicalJson(null)).toBe('null');
  });

  it('handles nesting far deeper than the call stack (rows stored before the depth limit)', () => {
    const levels = 200_000;
    const text = '{"a":['.repeat(levels) + ']}'.repeat(levels);
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });
});
