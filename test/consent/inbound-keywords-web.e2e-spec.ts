import { SuppressionsService } from '../../src/consent/suppressions.service';
import { createTestApp, TestApp } from '../support/app';
import { accountIdOf } from '../../src/common/account-id';

// Issue 28 item 4 on the web-session path: a contact's STOP / START to an account's web session.
describe('Inbound keywords on web sessions (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => (t = await createTestApp({ env: { WAHA_BASE_URL: 'http://127.0.0.1:9' } })));
  afterAll(async () => t?.close());

  it('STOP from a contact suppresses that phone for chatapp_web; START lifts it; a group STOP does nothing', async () => {
    const acc = await t.createAccount();
    await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'main', status: 'ready', chats: [] })
      .expect(201);
    const inbound = (body: Record<string, unknown>) =>
      t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions/main/inbound`).send(body).expect(202);
    const entries = (phone: string) =>
      t.app.get(SuppressionsService).list(accountIdOf(acc.id), { recipient: phone, limit: 10 });

    await inbound({ from: { jid: '966500000311@c.us', displayName: 'A' }, text: 'Stop', remoteMessageId: 'kw-1' });
    expect(await entries('+966500000311')).toEqual([
      expect.objectContaining({
        channel: 'chatapp_web',
        scope: 'all',
        reason: 'keyword',
        source: expect.stringMatching(/^win_/),
      }),
    ]);
    await inbound({
      from: { jid: '966500000312@c.us', displayName: 'G' },
      remoteChatId: '1203630@g.us',
      isGroup: true,
      text: 'STOP',
      remoteMessageId: 'kw-2',
    });
    expect(await entries('+966500000312')).toEqual([]);
    await inbound({ from: { jid: '966500000311@c.us', displayName: 'A' }, text: 'اشتراك', remoteMessageId: 'kw-3' });
    expect(await entries('+966500000311')).toEqual([]);
    // The provider repeating the STOP (same remote message id) is a duplicate: it does not opt out again.
    const again = await inbound({
      from: { jid: '966500000311@c.us', displayName: 'A' },
      text: 'Stop',
      remoteMessageId: 'kw-1',
    });
    expect(again.body.data.dropped).toBe('duplicate');
    expect(await entries('+966500000311')).toEqual([]);
  });
});
