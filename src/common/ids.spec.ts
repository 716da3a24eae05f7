import { newId, randomPart } from './ids';

describe('ids', () => {
  it('newId: prefix, 10 time characters and 14 random ones of the alphabet, unique across pool refills', () => {
    const ids = Array.from({ length: 5000 }, () => newId('msg'));
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^msg_[0-9a-hjkmnp-tv-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Sorted by creation time: a later id never sorts before an earlier one's time part.
    expect(ids[ids.length - 1].slice(4, 14) >= ids[0].slice(4, 14)).toBe(true);
  });

  it('randomPart: any length, also longer than the pool it draws from', () => {
    expect(randomPart(26)).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
    expect(randomPart(5000)).toHaveLength(5000);
    expect(randomPart(0)).toBe('');
  });
});
