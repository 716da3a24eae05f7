import { ApiError } from '../common/errors';
import type { BodyOutcome } from './bulk-body-reader';

// The request rules of POST /messages/bulk, checked in a fixed order once the body ended.
export const MAX_KEY = 200;

export interface PendingRow {
  idx: number;
  to: string | null;
  channel: string | null;
  payload: string;
}

export type Fingerprint = { raw: string; canonical: string | null };

export interface JobFields {
  name: string | null;
  mps: number;
  /** `testOptions.instantReceipts` (test keys only; the intake refuses it for a live key). */
  instantReceipts: boolean;
}

export interface CheckedFields extends JobFields {
  key: string;
}

export function validKey(key: unknown): key is string {
  return typeof key === 'string' && key.trim().length > 0 && key.length <= MAX_KEY;
}

/** Fixed order of checks, whatever the order of fields in the body. */
export function checkFields(o: BodyOutcome, headerKey: string | undefined, firstBad: string | null): CheckedFields {
  if (o.invalidBody) throw new ApiError('INVALID_REQUEST_BODY', o.invalidBody);
  const bodyKey = o.top.idempotencyKey;
  const key = headerKey ?? bodyKey;
  if (key === undefined || key === null)
    throw new ApiError('IDEMPOTENCY_KEY_REQUIRED', 'The Idempotency-Key header is required');
  if (!validKey(key))
    throw new ApiError('IDEMPOTENCY_KEY_INVALID', `Idempotency-Key must be 1 to ${MAX_KEY} characters`);
  return { key, ...checkJobFields(o, firstBad) };
}

/** The checks after the key, in the same order: also all a dry run (no key) checks after the body itself. */
export function checkJobFields(o: BodyOutcome, firstBad: string | null): JobFields {
  if (o.invalidBody) throw new ApiError('INVALID_REQUEST_BODY', o.invalidBody);
  const name = o.top.name;
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > 200)) {
    throw new ApiError('INVALID_REQUEST_BODY', 'name must be a string of at most 200 characters');
  }
  const mps = o.top.messagesPerSecond;
  if (typeof mps !== 'number' || !Number.isInteger(mps) || mps < 1 || mps > 10) {
    throw new ApiError('MESSAGES_PER_SECOND_INVALID', 'messagesPerSecond must be an integer from 1 to 10');
  }
  const instantReceipts = testOptions(o.top.testOptions);
  if (!o.messagesIsArray || o.count === 0)
    throw new ApiError('MESSAGES_REQUIRED', 'messages must be a non-empty array');
  if (firstBad) throw new ApiError('INVALID_MESSAGE', firstBad);
  return { name: (name as string | null | undefined) ?? null, mps, instantReceipts };
}

/** `testOptions`: absent or null, or `{ instantReceipts?: boolean }` and nothing else. */
function testOptions(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  const bad = () => new ApiError('INVALID_REQUEST_BODY', 'testOptions must be an object { instantReceipts: boolean }');
  if (typeof value !== 'object' || Array.isArray(value)) throw bad();
  const o = value as Record<string, unknown>;
  if (Object.keys(o).some((k) => k !== 'instantReceipts')) throw bad();
  if (o.instantReceipts !== undefined && typeof o.instantReceipts !== 'boolean') throw bad();
  return o.instantReceipts === true;
}

export function elementProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  const el = value as Record<string, unknown>;
  if (Array.isArray(el.to)) return 'to must not be an array (one recipient per element)';
  if ('scheduleAt' in el) return 'must not use scheduleAt';
  return null;
}

export function toPendingRow(idx: number, el: Record<string, unknown>, text: string): PendingRow {
  const to =
    el.to === undefined || el.to === null
      ? null
      : (typeof el.to === 'string' ? el.to : JSON.stringify(el.to)).slice(0, 320);
  const channel = typeof el.channel === 'string' ? el.channel.slice(0, 32) : null;
  return { idx, to, channel, payload: text };
}
