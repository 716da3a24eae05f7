import { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { Env } from '../../src/config/app-config';
import { MetricsService } from '../../src/metrics/metrics.service';
import { createTestApp, TestAccount, TestApp, TestAppOptions } from '../support/app';

// Shared by the test/fraud suites (the verification fraud guard).

/** The app with its Clock reading `Date.now() + shift()`, so a test moves time instead of sleeping. */
export async function fraudApp(
  env: Env = {},
  shift: () => number = () => 0,
  opts: TestAppOptions = {},
): Promise<TestApp> {
  const t = await createTestApp({ ...opts, env: { VERIFICATION_SEND_LIMIT: '5', ...env, ...opts.env } });
  t.app.get(Clock).now = () => Date.now() + shift();
  return t;
}

/** Request helpers on the suite's current app (read at each call). */
export function fraudHelpers(app: () => TestApp) {
  const send = (acc: TestAccount | string, to: string, channel = 'local_sms') =>
    app()
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', typeof acc === 'string' ? acc : acc.key)
      .send({ to, channel });

  const check = (acc: TestAccount, verificationId: string, code: string) =>
    app().http().post('/api/v2/verification/check').set('X-API-Key', acc.key).send({ verificationId, code });

  /** The code the sandbox delivered to `to` last, as the user's phone shows it. */
  async function codeOf(acc: TestAccount, to: string): Promise<string> {
    const res = await app().admin('get', '/admin/v1/sandbox/messages').query({ accountId: acc.id, to });
    const texts = (res.body.data.messages as { text: string }[]).map((m) => m.text);
    const m = /verification code is (\d+)\./.exec(texts[texts.length - 1] ?? '');
    if (!m) throw new Error(`no code delivered to ${to}`);
    return m[1];
  }

  /** A real user: asks for a code and types it in. */
  async function signIn(acc: TestAccount, to: string): Promise<number> {
    const sent = await send(acc, to);
    if (sent.status !== 201) return sent.status;
    const res = await check(acc, sent.body.data.verificationId, await codeOf(acc, to));
    return res.body.data?.valid === true ? 200 : res.status;
  }

  const blocks = (acc: TestAccount, q = '') =>
    app().http().get(`/api/v2/verification/fraud-blocks${q}`).set('X-API-Key', acc.key);
  const lift = (acc: TestAccount, id: string) =>
    app().http().delete(`/api/v2/verification/fraud-blocks/${id}`).set('X-API-Key', acc.key);

  /** Codes this account paid for to numbers starting with `prefix` (messages in the log). */
  async function paidTo(acc: TestAccount, prefix: string): Promise<number> {
    const rows: { n: number | string }[] = await app()
      .app.get(DataSource)
      .query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND recipient LIKE ?', [acc.id, `${prefix}%`]);
    return Number(rows[0].n);
  }

  async function wallet(acc: TestAccount): Promise<number> {
    return (await app().http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance;
  }

  /** A counter's value in the app's scrape (0 when the series does not exist yet). */
  async function metric(name: string, labels: string): Promise<number> {
    const line = (await app().app.get(MetricsService).scrape())
      .split('\n')
      .find((l) => l.startsWith(`${name}{${labels}}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  return { send, check, codeOf, signIn, blocks, lift, paidTo, wallet, metric };
}

/** `+966` mobile numbers: `+9665` then `digits` (8 more digits), never a sandbox magic ending (0000). */
export const saNumber = (prefix4: string, n: number): string => `+966${prefix4}${String(n).padStart(5, '0')}`;
