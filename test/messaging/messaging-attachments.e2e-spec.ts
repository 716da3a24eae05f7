import { refusedTargetText } from '../../src/common/net/target-policy';
import { createTestApp, TestAccount, TestApp } from '../support/app';

const mail = (url: string) => ({
  to: 'sara@example.org',
  channel: 'email',
  messageType: 'free_text',
  content: { subject: 'Invoice', text: 'Attached' },
  attachment: { url, fileName: 'a.pdf' },
});

// Providers (SMTP, bot API) fetch attachment URLs from our server: the send validator applies the
// target rules of every server-side fetch, with one refusal text whatever the reason (no DNS oracle).
const REFUSED = refusedTargetText('attachment.url');
describe('Attachment URLs: SSRF rules (e2e)', () => {
  describe('WEBHOOK_ALLOW_INSECURE=false', () => {
    let t: TestApp;
    let acc: TestAccount;

    beforeAll(async () => {
      t = await createTestApp({ env: { WEBHOOK_ALLOW_INSECURE: 'false' } });
      acc = await t.createAccount({ walletBalance: 1000 });
    });
    afterAll(async () => {
      await t.close();
    });

    const send = (body: Record<string, unknown>) =>
      t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
    const wallet = async () =>
      (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;
    const delivered = async () =>
      (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`)).body.data.messages as unknown[];

    it.each([
      'http://127.0.0.1/files/a.pdf',
      'http://files.example.com/a.pdf',
      'https://127.0.0.1/files/a.pdf',
      'https://10.0.0.5/a.pdf',
      'https://192.168.1.20/a.pdf',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/a.pdf',
      'https://localhost/a.pdf',
      'https://user:pw@files.example.com/a.pdf',
      'https://@8.8.8.8/a.pdf',
      // Address classes from ipaddr.js: site-local, discard, Teredo, IPv4-mapped loopback, IPv4-compatible.
      'https://[fec0::1]/a.pdf',
      'https://[100::1]/a.pdf',
      'https://[2001::1]/a.pdf',
      'https://[::ffff:127.0.0.1]/a.pdf',
      'https://[::7f00:1]/a.pdf',
      // Only port 443 unless WEBHOOK_ALLOWED_PORTS says more.
      'https://8.8.8.8:8443/a.pdf',
      'https://8.8.8.8:22/a.pdf',
      // The attack: WHATWG reads host 8.8.8.8, nodemailer's legacy parser an empty host (localhost).
      'https:///8.8.8.8/x',
      'https:\\\\8.8.8.8\\x',
      'https://8.8.8.8\t/x',
      // A name that does not resolve gets the same text as one that resolves inside.
      'https://no-such-host.invalid/a.pdf',
    ])('refuses %s with 400 INVALID_ATTACHMENT, nothing sent or debited', async (url) => {
      const before = await wallet();
      const res = await send(mail(url));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'INVALID_ATTACHMENT', error: REFUSED });
      expect(await wallet()).toBe(before);
      expect(await delivered()).toEqual([]);
    });

    it('applies the rule on chat channels too', async () => {
      await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'shop', status: 'ready', chats: [{ chatId: 'c1@c.us', kind: 'direct', title: 'C1' }] })
        .expect(201);
      const res = await send({
        channel: 'chatapp_web',
        messageType: 'free_text',
        content: { text: 'x' },
        chatId: 'c1@c.us',
        conversationContext: { moduleType: 'chatapp_web', accountId: 'shop', chatId: 'c1@c.us' },
        attachment: { url: 'https://127.0.0.1:8080/x.png' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_ATTACHMENT', error: REFUSED });
    });
  });

  describe('default test env (insecure targets allowed)', () => {
    let t: TestApp;
    let acc: TestAccount;

    beforeAll(async () => {
      t = await createTestApp();
      acc = await t.createAccount({ walletBalance: 1000 });
    });
    afterAll(async () => {
      await t.close();
    });

    it('a sandbox send with an allowed attachment URL is sent (recorded by the sandbox)', async () => {
      const res = await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send(mail('http://127.0.0.1:9/files/a.pdf'));
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ to: 'sara@example.org', channel: 'email', status: 'sent' });
      const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`)).body.data.messages as Record<
        string,
        unknown
      >[];
      expect(d).toHaveLength(1);
      expect(d[0]).toMatchObject({ messageId: res.body.data.messages[0].id, to: 'sara@example.org' });
    });
  });
});
