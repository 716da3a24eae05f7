import { DataSource } from 'typeorm';
import type { TestAccount, TestApp } from '../support/app';

// Shared by the test/marketing suites (promotional senders, opt-out footer, link hosts, sending hours).

export const FOOTER_EN = 'Reply STOP to opt out';
export const FOOTER_AR = 'لإيقاف الرسائل أرسل إيقاف';

/** Request helpers on the suite's current app and account (read at each call). */
export function marketingHelpers(app: () => TestApp, account: () => TestAccount) {
  const t = () => app();
  const send = (body: Record<string, unknown>) =>
    t().http().post('/api/v2/messages/send').set('X-API-Key', account().key).send(body);
  const sms = (to: string, text: string, extra: Record<string, unknown> = {}) => ({
    to,
    channel: 'local_sms',
    messageType: 'free_text',
    content: { text },
    ...extra,
  });
  /** An approved sender of the account (created, then approved by the operator). */
  async function sender(name: string, type: 'transactional' | 'promotional'): Promise<string> {
    const res = await t().http().post('/api/v2/sms-senders').set('X-API-Key', account().key).send({ name, type });
    if (res.status !== 201) throw new Error(`sender ${res.status} ${JSON.stringify(res.body)}`);
    const id = res.body.data.smsSender.id as string;
    const ok = await t().admin('post', `/admin/v1/sms-senders/${id}/approve`).send({});
    if (ok.status !== 200) throw new Error(`approve ${ok.status} ${JSON.stringify(ok.body)}`);
    return name;
  }
  const compliance = (body: Record<string, unknown>) =>
    t().http().patch('/api/v2/account/compliance').set('X-API-Key', account().key).send(body);
  const wallet = async () =>
    (await t().http().get('/api/v2/account').set('X-API-Key', account().key)).body.data.walletBalance as number;
  const delivered = async (to: string) =>
    (await t().admin('get', `/admin/v1/sandbox/messages?accountId=${account().id}&to=${encodeURIComponent(to)}`)).body
      .data.messages as { text: string; sender?: string; deliveredAt: string }[];
  const messageCount = async () =>
    Number(
      (
        await t().app.get(DataSource).query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', [account().id])
      )[0].n,
    );
  return { send, sms, sender, compliance, wallet, delivered, messageCount };
}
