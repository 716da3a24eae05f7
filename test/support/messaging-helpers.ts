import { createTestApp, TestAccount, TestApp } from './app';

export const PHONE = '+966501234567';

/**
 * The messaging suites' setup: one app for the describe block (beforeAll/afterAll) and a fresh account
 * with a 100,000 wallet before each test, handed to the suite through `setApp`/`setAccount`; and the
 * suite's shortcuts, which use the current test's account.
 */
export function useMessagingApp(setApp: (t: TestApp) => void, setAccount: (acc: TestAccount) => void) {
  let t: TestApp;
  let acc: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    setApp(t);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount({ walletBalance: 100_000 });
    setAccount(acc);
  });

  const send = (body: Record<string, unknown>, key = acc.key) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', key).send(body);
  const sms = (to: unknown = PHONE, extra: Record<string, unknown> = {}) => ({
    to,
    channel: 'local_sms',
    messageType: 'free_text',
    content: { text: 'Hello' },
    ...extra,
  });
  const account = async () => (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data;
  const delivered = async (q: string) =>
    (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}${q}`)).body.data.messages as Record<
      string,
      unknown
    >[];
  return { send, sms, account, delivered };
}
