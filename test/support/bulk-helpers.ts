import { DataSource } from 'typeorm';
import request from 'supertest';
import { SandboxProvider } from '../../src/providers/sandbox/sandbox.provider';
import { sandboxUndeliverable } from '../../src/providers/sandbox/sandbox-receipts';
import { TestApp, waitFor } from './app';

export const BULK_TEST_ENV = {
  BULK_VALIDATION_TICK_MS: '20',
  BULK_DISPATCH_TICK_MS: '20',
  BULK_REAPER_TICK_MS: '100',
  BULK_RATE_LIMIT_BACKOFF_MS: '400',
  BULK_LEASE_MS: '3000',
  // (The dispatch lease is at least two provider timeouts.)
  PROVIDER_TIMEOUT_MS: '1000',
  SANDBOX_FAULT_REFRESH_MS: '0',
};

/**
 * BULK_TEST_ENV with 5 s provider calls, for suites that wait on no lease and no timeout: on a loaded
 * CI box a healthy sandbox call once took over 1 s and failed its row, throwing a suite's counts off.
 */
export const BULK_TEST_ENV_PATIENT = { ...BULK_TEST_ENV, PROVIDER_TIMEOUT_MS: '5000' };

/**
 * For the bulk-intake suites: no validation nor dispatch loop, so jobs stay `validating`. The reaper
 * still runs (BULK_TEST_ENV, every 100 ms): one intake failure case relies on it.
 */
export const INTAKE_TEST_ENV = { ...BULK_TEST_ENV, BULK_VALIDATION_TICK_MS: '600000', BULK_DISPATCH_TICK_MS: '600000' };

/** For the bulk-lifecycle suites. */
export const LIFECYCLE_TEST_ENV = {
  ...BULK_TEST_ENV_PATIENT,
  // One call of a window at a time, so a provider error in the middle leaves the later rows untried (the case these tests pin down).
  BULK_SEND_LANES: '1',
};

let seq = 0;
/**
 * A valid Saudi mobile number, unique per call, never one the sandbox rejects or fails by receipt
 * (its own rules): about one in 5,000 of these numbers was, and failed a row of a suite.
 */
export function phone(): string {
  seq++;
  const n = `+96650${String(1_000_000 + ((Date.now() + seq * 7919) % 8_999_999))}`;
  return SandboxProvider.rejects(n) || sandboxUndeliverable(n) ? `${n.slice(0, -1)}1` : n;
}

export function sms(to: string = phone(), text = 'hello'): Record<string, unknown> {
  return { to, channel: 'local_sms', messageType: 'free_text', content: { text } };
}

export function post(t: TestApp, key: string, body: unknown, idem: string | null = `k-${Math.random()}`): request.Test {
  const req = t.http().post('/api/v2/messages/bulk').set('X-API-Key', key).set('Content-Type', 'application/json');
  if (idem !== null) req.set('Idempotency-Key', idem);
  return req.send(typeof body === 'string' ? body : JSON.stringify(body));
}

export interface JobJson {
  id: string;
  status: string;
  pauseReason: string | null;
  total: number;
  validatedCount: number;
  counts: { pending: number; sent: number; failed: number; cancelled: number };
  delivery: { delivered: number; read: number; undelivered: number };
  errorCode: string | null;
  errorMessage: string | null;
  [field: string]: unknown;
}

export async function getJob(t: TestApp, key: string, id: string): Promise<JobJson> {
  const res = await t.http().get(`/api/v2/messages/bulk/${id}`).set('X-API-Key', key);
  if (res.status !== 200) throw new Error(`GET job ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.job;
}

export async function waitStatus(
  t: TestApp,
  key: string,
  id: string,
  statuses: string[],
  timeoutMs = 20000,
): Promise<JobJson> {
  return waitFor(
    async () => {
      const job = await getJob(t, key, id);
      return statuses.includes(job.status) ? job : null;
    },
    { timeoutMs, what: `job ${id} in ${statuses.join('/')}` },
  );
}

export function ds(t: TestApp): DataSource {
  return t.app.get(DataSource);
}

export async function jobCount(t: TestApp, accountId: string): Promise<number> {
  const rows = await ds(t).query('SELECT COUNT(*) AS n FROM bulk_jobs WHERE account_id = ?', [accountId]);
  return Number(rows[0].n);
}

export async function rowCount(t: TestApp): Promise<number> {
  const rows = await ds(t).query('SELECT COUNT(*) AS n FROM bulk_rows');
  return Number(rows[0].n);
}

export async function deliveries(
  t: TestApp,
  jobId: string,
): Promise<{ deliveredAt: string; rowIndex: number; messageId: string }[]> {
  const res = await t.admin('get', `/admin/v1/sandbox/messages?bulkJobId=${jobId}&limit=10000`);
  if (res.status !== 200) throw new Error(`sandbox ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.messages;
}

/** Largest number of deliveries inside any one-second window [t, t+1000). */
export function maxInAnySecond(times: number[]): number {
  const s = [...times].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < s.length; i++) {
    while (s[i] - s[j] >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

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
