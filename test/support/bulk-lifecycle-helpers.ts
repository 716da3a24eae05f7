import { BULK_TEST_ENV_PATIENT } from '../bulk-helpers';
import { TestApp } from './app';

/** For the bulk-lifecycle suites. */
export const LIFECYCLE_TEST_ENV = {
  ...BULK_TEST_ENV_PATIENT,
  // One call of a window at a time, so a provider error in the middle leaves the later rows untried (the case these tests pin down).
  BULK_SEND_LANES: '1',
};

/** A number the sandbox rejects (it ends in 0000). */
export const rejectedPhone = (): string => `+96650${String(100 + Math.floor(Math.random() * 899))}0000`;

/** `rows(key, id, query)`: a job's rows report (GET .../rows), expected 200, as its `data`. */
export function rowsReport(app: () => TestApp) {
  return async (key: string, id: string, query = '') => {
    const res = await app().http().get(`/api/v2/messages/bulk/${id}/rows${query}`).set('X-API-Key', key);
    expect(res.status).toBe(200);
    return res.body.data;
  };
}
