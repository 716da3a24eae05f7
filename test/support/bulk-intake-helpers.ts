import { BULK_TEST_ENV } from '../bulk-helpers';
import { REQUEST_ID_RE } from './app';

/**
 * For the bulk-intake suites: no validation nor dispatch loop, so jobs stay `validating`. The reaper
 * still runs (BULK_TEST_ENV, every 100 ms): one intake failure case relies on it.
 */
export const INTAKE_TEST_ENV = { ...BULK_TEST_ENV, BULK_VALIDATION_TICK_MS: '600000', BULK_DISPATCH_TICK_MS: '600000' };

export function expectError(res: { status: number; body: Record<string, unknown> }, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body.success).toBe(false);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.requestId).toMatch(REQUEST_ID_RE);
}
