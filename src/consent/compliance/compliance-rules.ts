import { getCountry } from 'countries-and-timezones';
import { ApiError } from '../../common/errors';
import { type MarketingRules, WEEK_DAYS, type WeekDay } from '../../messaging/validation/lookups';

/** What an account gets until its owner changes it (CST: promotional SMS 09:00-22:00 KSA time). */
export const DEFAULT_RULES: MarketingRules = {
  footer: { ar: 'لإيقاف الرسائل أرسل إيقاف', en: 'Reply STOP to opt out' },
  allowedLinkDomains: [],
  window: { start: '09:00', end: '22:00', days: [...WEEK_DAYS] },
  defaultTimeZones: {},
};

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
// A host name: labels of letters, digits and hyphens, at least one dot, no scheme, port or path.
const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const FOOTER_MAX = 70;
export const LINK_DOMAINS_MAX = 50;

export function readWindowTime(field: string, v: string): string {
  if (!HHMM.test(v)) throw ApiError.validation(`${field} must be a local time HH:MM (00:00 to 23:59)`);
  return v;
}

/** The window is one stretch of a local day: start before end (22:00-09:00 over midnight is not a window here). */
export function checkWindow(start: string, end: string): void {
  if (start >= end) throw ApiError.validation('marketingWindow.start must be before marketingWindow.end');
}

export function readDays(v: string[]): WeekDay[] {
  const days = new Set<WeekDay>();
  for (const d of v) {
    const day = WEEK_DAYS.find((w) => w === d);
    if (!day)
      throw ApiError.validation(
        `marketingWindow.days: ${String(d).slice(0, 10)} is not one of ${WEEK_DAYS.join(', ')}`,
      );
    days.add(day);
  }
  if (!days.size) throw ApiError.validation('marketingWindow.days must name at least one day');
  return WEEK_DAYS.filter((d) => days.has(d));
}

export function readZones(v: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Object.entries(v);
  if (entries.length > 300) throw ApiError.validation('defaultTimeZones may name at most 300 countries');
  for (const [country, zone] of entries) {
    const code = country.toUpperCase();
    const found = /^[A-Z]{2}$/.test(code) ? getCountry(code) : null;
    if (!found)
      throw ApiError.validation(`defaultTimeZones: ${country.slice(0, 10)} is not an ISO 3166-1 country code`);
    if (typeof zone !== 'string' || !(found.timezones as readonly string[]).includes(zone))
      throw ApiError.validation(
        `defaultTimeZones.${code} must be one of the country's zones: ${found.timezones.slice(0, 20).join(', ')}`,
      );
    out[code] = zone;
  }
  return out;
}

export function readDomains(v: string[]): string[] {
  if (v.length > LINK_DOMAINS_MAX)
    throw ApiError.validation(`allowedLinkDomains may hold at most ${LINK_DOMAINS_MAX} hosts`);
  const out = new Set<string>();
  for (const raw of v) {
    const host = String(raw).trim().toLowerCase().replace(/\.$/, '');
    if (!HOST.test(host))
      throw ApiError.validation(
        `allowedLinkDomains: ${String(raw).slice(0, 60)} is not a host name (example.com, no scheme, port or path)`,
      );
    out.add(host);
  }
  return [...out];
}

export function readFooter(field: string, v: string): string {
  const text = v.trim();
  if (!text || text.length > FOOTER_MAX)
    throw ApiError.validation(`${field} must be 1 to ${FOOTER_MAX} characters of opt-out instructions`);
  return text;
}
