import { BULK_TEST_ENV } from '../bulk-helpers';

/**
 * For the bulk-intake suites: no validation nor dispatch loop, so jobs stay `validating`. The reaper
 * still runs (BULK_TEST_ENV, every 100 ms): one intake failure case relies on it.
 */
export const INTAKE_TEST_ENV = { ...BULK_TEST_ENV, BULK_VALIDATION_TICK_MS: '600000', BULK_DISPATCH_TICK_MS: '600000' };
