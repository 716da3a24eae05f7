import { derivedId, idAt, newId, randomPart, timeOfId } from './ids';

describe('ids', () => {
  it('newId: prefix, 10 time characters and 14 random ones of the alphabet, unique across pool refills', () => {
    const ids = Array.from({ length: 5000 }, () => newId('msg'));
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^msg_[0-9a-hjkmnp-tv-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Sorted by creation time: a later id never sorts before an earlier one's time part.
    expect(ids[ids.length - 1].slice(4, 14) >= ids[0].slice(4, 14)).toBe(true);
  });

  it('newId is monotonic in one process: ids of one millisecond, or made while the clock stands behind, count up', () => {
    const t = Date.now() + 60_000; // past every id made so far in this process
    const now = jest.spyOn(Date, 'now');
    try {
      now.mockReturnValue(t);
      const same = Array.from({ length: 1000 }, () => newId('ism'));
      now.mockReturnValue(t - 5_000); // the clock stepped back
      const behind = Array.from({ length: 10 }, () => newId('ism'));
      now.mockReturnValue(t + 1);
      const next = newId('ism');
      const all = [...same, ...behind, next];
      for (let i = 1; i < all.length; i++) expect(all[i] > all[i - 1]).toBe(true);
      expect(all.slice(0, -1).every((id) => timeOfId(id) === t)).toBe(true);
      expect(timeOfId(next)).toBe(t + 1);
      // A new millisecond draws a new random part (not the last one plus one).
      expect(next.slice(14)).not.toBe(same[0].slice(14));
    } finally {
      now.mockRestore();
    }
  });

  it('randomPart: any length, also longer than the pool it draws from', () => {
    expect(randomPart(26)).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
    expect(randomPart(5000)).toHaveLength(5000);
    expect(randomPart(0)).toBe('');
  });
});

describe('idAt / timeOfId', () => {
  it('an id made at t sorts at or after idAt(t), before idAt(t + 1), and tells its time', () => {
    const t = Date.UTC(2026, 10, 28, 12, 0, 0, 123);
    const id = derivedId('msg', t, 'k');
    expect(id >= idAt('msg', t)).toBe(true);
    expect(id < idAt('msg', t + 1)).toBe(true);
    expect(timeOfId(id)).toBe(t);
    expect(timeOfId('nonsense')).toBeNull();
  });
});
