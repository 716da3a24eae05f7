import { DEFAULT_RULES } from './compliance-rules';
import { nextOpening, zoneOfNumber } from './sending-hours';

const window = DEFAULT_RULES.window;
const at = (iso: string) => Date.parse(iso);

describe('sending hours', () => {
  it("takes the zone from the number's country, the account's choice for a country of several zones", () => {
    expect(zoneOfNumber('+966501234567', {})).toBe('Asia/Riyadh');
    expect(zoneOfNumber('+12025550123', {})).toBe('America/Adak');
    expect(zoneOfNumber('+12025550123', { US: 'America/New_York' })).toBe('America/New_York');
    expect(zoneOfNumber('+80012345678', {})).toBe('UTC');
  });

  it('is open inside 09:00-22:00 local and names the next 09:00 outside', () => {
    // Riyadh is UTC+3: 23:00 local = 20:00Z, next opening 09:00 local = 06:00Z next day.
    expect(nextOpening(at('2026-11-28T20:00:00Z'), 'Asia/Riyadh', window)).toBe(at('2026-11-29T06:00:00Z'));
    expect(nextOpening(at('2026-11-28T05:59:00Z'), 'Asia/Riyadh', window)).toBe(at('2026-11-28T06:00:00Z'));
    expect(nextOpening(at('2026-11-28T06:00:00Z'), 'Asia/Riyadh', window)).toBeNull();
    expect(nextOpening(at('2026-11-28T18:59:00Z'), 'Asia/Riyadh', window)).toBeNull();
    expect(nextOpening(at('2026-11-28T19:00:00Z'), 'Asia/Riyadh', window)).toBe(at('2026-11-29T06:00:00Z'));
  });

  it('skips days outside the allowed ones', () => {
    // 2026-11-27 is a Friday; only Sunday to Thursday allowed: Friday noon waits for Sunday 09:00.
    const weekdays = { ...window, days: ['sun', 'mon', 'tue', 'wed', 'thu'] as typeof window.days };
    expect(nextOpening(at('2026-11-27T09:00:00Z'), 'Asia/Riyadh', weekdays)).toBe(at('2026-11-29T06:00:00Z'));
  });

  it('names the local opening across a daylight-saving change', () => {
    // New York leaves DST on 2026-11-01: 23:00 EDT on Oct 31 -> 09:00 EST Nov 1 = 14:00Z.
    expect(nextOpening(at('2026-11-01T03:00:00Z'), 'America/New_York', window)).toBe(at('2026-11-01T14:00:00Z'));
  });
});
