import { DataSource } from 'typeorm';
import { newId } from '../../src/common/ids';
import { RecipientHasher } from '../../src/common/recipient-hasher';
import { TestAccount, TestApp, waitFor } from './app';

// Shared by the test/privacy suites.

export function privacyHelpers(app: () => TestApp) {
  const db = () => app().app.get(DataSource);
  const hash = (accountId: string, recipient: string) => app().app.get(RecipientHasher).hash(accountId, recipient);

  const requestErasure = (acc: TestAccount | string, recipient: unknown) =>
    app()
      .http()
      .post('/api/v2/privacy/erasures')
      .set('X-API-Key', typeof acc === 'string' ? acc : acc.key)
      .send({ recipient });
  const getErasure = (acc: TestAccount, id: string) =>
    app().http().get(`/api/v2/privacy/erasures/${id}`).set('X-API-Key', acc.key);

  async function completed(acc: TestAccount, id: string): Promise<Record<string, unknown>> {
    return waitFor(
      async () => {
        const res = await getErasure(acc, id);
        return res.body.data?.erasure?.status === 'completed'
          ? (res.body.data.erasure as Record<string, unknown>)
          : null;
      },
      { timeoutMs: 20000, what: `erasure ${id} completed` },
    );
  }

  const sendSms = (acc: TestAccount, to: string, text: string) =>
    app()
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text } });

  /** An inbound SMS as the SMSC would have stored it (from without `+`). */
  async function inboundSms(accountId: string, from: string, text: string): Promise<string> {
    const id = newId('isms');
    await db().query(
      'INSERT INTO inbound_sms (id, account_id, sender_id, from_address, to_address, text, provider_message_id, received_at) VALUES (?, ?, NULL, ?, ?, ?, NULL, ?)',
      [id, accountId, from, 'ACME', text, Date.now()],
    );
    return id;
  }

  /** A pending outbox delivery whose body names the recipient and carries its text. */
  async function pendingDelivery(accountId: string, to: string, text: string): Promise<string> {
    const id = newId('whd');
    const body = JSON.stringify({
      type: 'sms.received',
      timestamp: new Date().toISOString(),
      data: { from: to, text },
    });
    const now = Date.now();
    await db().query(
      `INSERT INTO webhook_deliveries (id, account_id, event, url, body, sealed_secret, api_key_header, status, attempt_count, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, 'sms.received', 'http://127.0.0.1:9/hook', ?, 'x', 0, 'pending', 0, ?, ?, ?)`,
      [id, accountId, body, now + 3_600_000, now, now],
    );
    return id;
  }

  return { db, hash, requestErasure, getErasure, completed, sendSms, inboundSms, pendingDelivery };
}
