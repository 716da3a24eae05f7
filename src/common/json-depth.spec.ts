import { exceedsJsonDepth } from './json-depth';

const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

describe('exceedsJsonDepth', () => {
  it('counts the root as level 1 and ignores scalars', () => {
    expect(exceedsJsonDepth(5, 0)).toBe(false);
    expect(exceedsJsonDepth({ a: 1 }, 1)).toBe(false);
    expect(exceedsJsonDepth({ a: [] }, 1)).toBe(true);
    expect(exceedsJsonDepth({ a: { b: 'x' }, c: [1, [2]] }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: { b: 'x' }, c: [1, [2]] }, 2)).toBe(true);
  });

  it('32 levels pass, 33 do not; 100k levels neither throw nor pass', () => {
    expect(exceedsJsonDepth(nested(32))).toBe(false);
    expect(exceedsJsonDepth(nested(33))).toBe(true);
    expect(exceedsJsonDepth(nested(100_000))).toBe(true);
  });
});
