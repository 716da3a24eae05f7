import { PurgePacer } from './purge-pacer';

describe('PurgePacer', () => {
  it('never rests at a share of 100% while units keep their pace', () => {
    const p = new PurgePacer(1);
    for (let i = 0; i < 20; i++) expect(p.restAfter('messages', 100 + (i % 3) * 10, 2000)).toBe(0);
    expect(p.currentShare).toBe(1);
  });

  it('rests in proportion to a fixed share below 100%', () => {
    const p = new PurgePacer(0.25);
    expect(p.restAfter('messages', 100, 2000)).toBe(300);
  });

  it('halves its share after each unit twice as slow as the fastest, down to 5%, and recovers by a tenth a unit', () => {
    const p = new PurgePacer(1);
    p.restAfter('messages', 100, 2000);
    expect(p.restAfter('messages', 300, 2000)).toBe(300); // share 50%: rests as long as it worked
    expect(p.currentShare).toBe(0.5);
    p.restAfter('messages', 300, 2000);
    expect(p.currentShare).toBe(0.25);
    for (let i = 0; i < 10; i++) p.restAfter('messages', 900, 2000);
    expect(p.currentShare).toBe(0.05);
    expect(p.restAfter('messages', 900, 2000)).toBeCloseTo(17_100);
    p.restAfter('messages', 100, 2000);
    expect(p.currentShare).toBeCloseTo(0.15);
    for (let i = 0; i < 20; i++) p.restAfter('messages', 100, 2000);
    expect(p.currentShare).toBe(1);
  });

  it('compares a unit with the fastest of its own kind only', () => {
    const p = new PurgePacer(1);
    p.restAfter('sandbox_deliveries', 10, 2000);
    expect(p.restAfter('messages', 100, 2000)).toBe(0);
    expect(p.currentShare).toBe(1);
  });

  it('learns nothing from an empty unit', () => {
    const p = new PurgePacer(1);
    p.restAfter('messages', 100, 2000);
    expect(p.restAfter('messages', 5000, 0)).toBe(0);
    expect(p.currentShare).toBe(1);
  });

  it('forgets its fastest unit slowly, so a table that grew is not taken for contention for ever', () => {
    const p = new PurgePacer(1);
    p.restAfter('messages', 100, 2000);
    for (let i = 0; i < 80; i++) p.restAfter('messages', 210, 2000);
    expect(p.restAfter('messages', 210, 2000)).toBe(0);
    expect(p.currentShare).toBe(1);
  });
});
