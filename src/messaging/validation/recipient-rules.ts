import { parsePhoneNumberFromString, CountryCode } from 'libphonenumber-js';
import { ApiError, ErrorCode } from '../../common/errors';

// Pure checks used by MessageValidator: no I/O, so a bulk row costs microseconds.

const EMAIL_RE =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export function fail(code: ErrorCode, message: string): never {
  throw new ApiError(code, message);
}

/** A valid phone number: its E.164 form and its country. */
export interface ParsedPhone {
  e164: string;
  /** ISO 3166-1 alpha-2; null for a number of no country (e.g. +800 freephone). */
  country: string | null;
}

/** A valid phone number in E.164 with its country, or null (national numbers read in `region`). */
export function parsePhone(raw: string, region: string): ParsedPhone | null {
  if (raw.length > 32) return null;
  const parsed = parsePhoneNumberFromString(raw, region as CountryCode);
  return parsed && parsed.isValid() ? { e164: parsed.number, country: parsed.country ?? null } : null;
}

const PHONE_CHAT_ID = /^(\d{6,15})@(?:c\.us|s\.whatsapp\.net)$/;

/**
 * The phone number behind a web-session chat id: a direct chat `<digits>@c.us` or
 * `<digits>@s.whatsapp.net`. Null for group chats (`@g.us`) and ids that are not phone numbers.
 */
export function phoneOfChatId(chatId: string): ParsedPhone | null {
  const m = PHONE_CHAT_ID.exec(chatId);
  return m ? parsePhone(`+${m[1]}`, 'ZZ') : null;
}

export function normaliseEmail(raw: string): string | null {
  const v = raw.trim().toLowerCase();
  if (v.length > 254 || v.split('@')[0].length > 64) return null;
  return EMAIL_RE.test(v) ? v : null;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function optionalString(
  obj: Record<string, unknown>,
  key: string,
  field: string,
  code: ErrorCode,
  max: number,
): string | null {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') fail(code, `${field} must be a string`);
  if (v.length > max) fail(code, `${field} must be at most ${max} characters`);
  return v;
}

export function httpUrl(v: unknown, field: string, code: ErrorCode): string {
  if (typeof v !== 'string' || v.length > 2048) fail(code, `${field} must be an http(s) URL`);
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    fail(code, `${field} must be an http(s) URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') fail(code, `${field} must be an http(s) URL`);
  return v;
}

/** scheduleAt: ISO 8601 with a date and time, strictly in the future, at most a year ahead. */
export function parseSchedule(v: unknown, now: number): number {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v))
    fail('INVALID_SCHEDULE', 'scheduleAt must be an ISO 8601 date-time, e.g. 2030-01-01T09:00:00Z');
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) fail('INVALID_SCHEDULE', 'scheduleAt is not a valid ISO 8601 date-time');
  if (ms <= now) fail('INVALID_SCHEDULE', 'scheduleAt must be in the future');
  if (ms > now + 366 * 24 * 3600_000) fail('INVALID_SCHEDULE', 'scheduleAt must be within one year');
  return ms;
}

/** Fills `{{n}}` placeholders (1-based) from `vars`. */
export function renderPlaceholders(text: string, vars: string[]): string {
  return text.replace(/\{\{\s*(\d+)\s*\}\}/g, (m, n: string) => vars[Number(n) - 1] ?? m);
}
