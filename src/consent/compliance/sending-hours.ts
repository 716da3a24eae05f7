import { getCountry } from 'countries-and-timezones';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { MarketingRules, WeekDay } from '../../messaging/validation/lookups';
import { WEEK_DAYS } from '../../messaging/validation/lookups';

/*
 * Marketing sending hours (issue 28 item 6), pure: the recipient's zone from its number's country, and
 * the next opening of the window in that zone. No I/O, so a bulk window judges its rows in microseconds.
 */

/** Numbers of no country (+800...) are judged in UTC. */
export const ZONE_OF_NO_COUNTRY = 'UTC';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

interface Local {
  y: number;
  mo: number;
  d: number;
  minutes: number;
}

function localOf(t: number, zone: string): Local {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p.year, mo: p.month - 1, d: p.day, minutes: p.hour * 60 + p.minute };
}

/** The zone's offset from UTC at `t`, in ms (whole minutes). */
function offsetAt(t: number, zone: string): number {
  const l = localOf(t, zone);
  return Date.UTC(l.y, l.mo, l.d, 0, l.minutes) - Math.floor(t / 60_000) * 60_000;
}

/** The instant a local date and time names in the zone (the later reading across a DST change). */
function instantOf(y: number, mo: number, d: number, minutes: number, zone: string, near: number): number {
  const wall = Date.UTC(y, mo, d, 0, minutes);
  const first = wall - offsetAt(near, zone);
  return wall - offsetAt(first, zone);
}

const toMinutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The recipient's zone: its number's country's only zone, the account's choice for that country, or its first. */
export function zoneOfNumber(e164: string, defaults: Record<string, string>): string {
  const country = parsePhoneNumberFromString(e164)?.country;
  if (!country) return ZONE_OF_NO_COUNTRY;
  return defaults[country] ?? getCountry(country)?.timezones[0] ?? ZONE_OF_NO_COUNTRY;
}

/** Null when `now` is inside the window in `zone`; otherwise the epoch ms of its next opening. */
export function nextOpening(now: number, zone: string, window: MarketingRules['window']): number | null {
  const days: ReadonlySet<WeekDay> = new Set(window.days);
  const start = toMinutes(window.start);
  const end = toMinutes(window.end);
  const l = localOf(now, zone);
  const weekday = (offset: number) => WEEK_DAYS[new Date(Date.UTC(l.y, l.mo, l.d + offset)).getUTCDay()];
  if (days.has(weekday(0)) && l.minutes >= start && l.minutes < end) return null;
  for (let ahead = l.minutes < start ? 0 : 1; ahead <= 7; ahead++) {
    if (!days.has(weekday(ahead))) continue;
    return instantOf(l.y, l.mo, l.d + ahead, start, zone, now);
  }
  return null; // no allowed day (the settings always name one)
}
