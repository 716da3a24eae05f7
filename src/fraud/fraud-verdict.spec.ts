import { judge, PrefixTally } from './fraud-verdict';

describe('judge', () => {
  const c = { minSends: 20, minConversionPermille: 100, newNumbersPerMinute: 30 };
  const tally = (t: Partial<PrefixTally>): PrefixTally => ({
    sends: 0,
    verified: 0,
    newThisMinute: 0,
    block: null,
    ...t,
  });

  it('allows a prefix below the minimum volume whatever its conversion', () => {
    expect(judge(tally({ sends: 19 }), true, c)).toEqual({ kind: 'allow' });
  });

  it('blocks at the minimum volume when fewer than the threshold were verified', () => {
    expect(judge(tally({ sends: 20, verified: 1 }), true, c)).toEqual({ kind: 'block', reason: 'low_conversion' });
    expect(judge(tally({ sends: 20, verified: 2 }), true, c)).toEqual({ kind: 'allow' });
    expect(judge(tally({ sends: 200, verified: 19 }), false, c)).toEqual({ kind: 'block', reason: 'low_conversion' });
  });

  it('refuses while a block is in force, before anything else', () => {
    expect(judge(tally({ block: { id: 'frb_1', until: 5 }, sends: 0 }), false, c)).toEqual({
      kind: 'blocked',
      until: 5,
    });
  });

  it('blocks a burst of new numbers, but not a known number in the same minute', () => {
    expect(judge(tally({ newThisMinute: 30, sends: 30, verified: 30 }), true, c)).toEqual({
      kind: 'block',
      reason: 'velocity',
    });
    expect(judge(tally({ newThisMinute: 30, sends: 30, verified: 30 }), false, c)).toEqual({ kind: 'allow' });
    expect(judge(tally({ newThisMinute: 29 }), true, c)).toEqual({ kind: 'allow' });
  });
});
