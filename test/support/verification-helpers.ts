import { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { createTestApp, TestAccount, TestApp } from './app';

// Shared by the verification*.e2e-spec.ts suites.

// Codes are read back from the sandbox deliveries, like a user reading their phone.
export const PHONE = '+966501234567';

/**
 * The suites' app, its one Clock reading `Date.now() + shiftMs()`: the tests move it forward (expiry,
 * send windows) instead of sleeping.
 */
export async function createVerificationApp(shiftMs: () => number = () => 0): Promise<TestApp> {
  const t = await createTestApp({ env: { VERIFICATION_SEND_LIMIT: '5', VERIFICATION_SEND_WINDOW_SECONDS: '600' } });
  const clock = t.app.get(Clock);
  clock.now = () => Date.now() + shiftMs();
  return t;
}

/** The suite's request helpers, on the suite's current app (read at each call). */
export function verificationHelpers(app: () => TestApp) {
  let phoneSeq = 1000;
  const nextPhone = () => `+96650${String(++phoneSeq).padStart(7, '0')}`;

  const send = (acc: TestAccount | string, body: Record<string, unknown>) =>
    app()
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', typeof acc === 'string' ? acc : acc.key)
      .send(body);
  const check = (acc: TestAccount | string, verificationId: string, code: string) =>
    app()
      .http()
      .post('/api/v2/verification/check')
      .set('X-API-Key', typeof acc === 'string' ? acc : acc.key)
      .send({ verificationId, code });

  async function deliveries(accountId: string, to: string): Promise<{ text: string; channel: string }[]> {
    const res = await app().admin('get', '/admin/v1/sandbox/messages').query({ accountId, to });
    expect(res.status).toBe(200);
    return res.body.data.messages;
  }

  /** The code in the latest sandbox delivery to `to`. */
  async function lastCode(accountId: string, to: string): Promise<string> {
    const msgs = await deliveries(accountId, to);
    const m = /verification code is (\d+)\./.exec(msgs[msgs.length - 1]?.text ?? '');
    if (!m) throw new Error(`no code delivered to ${to}: ${JSON.stringify(msgs)}`);
    return m[1];
  }

  async function sendOk(acc: TestAccount, body: Record<string, unknown>): Promise<{ id: string; code: string }> {
    const res = await send(acc, body);
    expect(res.status).toBe(201);
    return { id: res.body.data.verificationId, code: await lastCode(acc.id, res.body.data.to) };
  }

  const wrong = (code: string) => code.replace(/^./, (d) => String((Number(d) + 1) % 10));

  async function rowsOf(accountId: string): Promise<{ status: string; code_hash: string; attempts: number }[]> {
    return app()
      .app.get(DataSource)
      .query('SELECT status, code_hash, attempts FROM verifications WHERE account_id = ?', [accountId]);
  }

  async function wallet(acc: TestAccount): Promise<number> {
    const res = await app().http().get('/api/v2/account').set('X-API-Key', acc.key);
    return res.body.data.walletBalance;
  }

  return { nextPhone, send, check, deliveries, lastCode, sendOk, wrong, rowsOf, wallet };
}
