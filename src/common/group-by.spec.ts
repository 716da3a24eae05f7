import { groupBy } from './group-by';

describe(groupBy.name, () => {
  it('groups in order of first appearance, keeping each group in order', () => {
    const got = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]);
    expect([...got]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
  });
});
