import { refusedTargetText } from '../../src/common/net/target-policy';
import { HttpFake } from '../providers-fakes/http-fake';
import { SmtpFake } from '../providers-fakes/smtp-fake';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { png } from '../support/media-fixtures';
import { chatappBody, mediaDir } from '../support/templates-helpers';

// Issue 10, items 1-4: every server-side fetch of a user-supplied URL goes through one guarded
// fetcher; the email channel runs on the SMTP adapter against a real SMTP server (smtp-server).
const CREDS = { user: 'mailer', pass: 's3cret' };
const mail = (url: string) => ({
  to: 'sara@example.org',
  channel: 'email',
  messageType: 'free_text',
  content: { subject: 'Invoice', text: 'Attached' },
  attachment: { url, fileName: 'a.pdf' },
});

function smtpEnv(smtp: SmtpFake, insecure: boolean): Record<string, string> {
  return {
    WEBHOOK_ALLOW_INSECURE: String(insecure),
    PROVIDER_EMAIL: 'smtp',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    SMTP_USER: CREDS.user,
    SMTP_PASS: CREDS.pass,
    SMTP_FROM: 'no-reply@notify.example.com',
    MEDIA_DIR: mediaDir(),
  };
}

describe('SSRF through attachments and header media (e2e, SMTP adapter)', () => {
  let smtp: SmtpFake;
  let internal: HttpFake;
  let files: HttpFake;

  beforeAll(async () => {
    smtp = await new SmtpFake(CREDS).start();
    internal = await new HttpFake().start();
    internal.reply = () => ({ status: 200, body: 'INTERNAL-SECRET' });
    files = await new HttpFake().start();
  });
  afterAll(async () => {
    await smtp.stop();
    await internal.stop();
    await files.stop();
  });
  beforeEach(() => {
    smtp.received.length = 0;
    internal.requests.length = 0;
    files.requests.length = 0;
  });

  const wallet = async (t: TestApp, acc: TestAccount) =>
    (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;
  const send = (t: TestApp, acc: TestAccount, body: Record<string, unknown>) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);

  describe('production rules (WEBHOOK_ALLOW_INSECURE=false)', () => {
    let t: TestApp;
    let acc: TestAccount;
    beforeAll(async () => {
      t = await createTestApp({ env: smtpEnv(smtp, false) });
      acc = await t.createAccount({ walletBalance: 1000 });
    });
    afterAll(() => t.close());

    // The attack as reported: our check saw host 8.8.8.8, nodemailer saw an empty host (localhost:443),
    // followed a redirect to the internal server and mailed both bodies to the attacker.
    it.each([
      'https:///8.8.8.8/x',
      'https:///127.0.0.1/x',
      'https://8.8.8.8:443@127.0.0.1/x',
      'https://[fec0::1]/x',
      'https://[100::1]/x',
      'https://[2001::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://169.254.169.254/latest/meta-data',
    ])('attachment %s: 400 INVALID_ATTACHMENT, nothing fetched, mailed or debited', async (url) => {
      const before = await wallet(t, acc);
      const res = await send(t, acc, mail(url));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        code: 'INVALID_ATTACHMENT',
        error: refusedTargetText('attachment.url'),
        requestId: expect.any(String),
      });
      expect(await wallet(t, acc)).toBe(before);
      expect(smtp.received).toHaveLength(0);
      expect(internal.requests).toHaveLength(0);
    });

    it('template.headerMediaUrl on send gets the same rules (loopback, private, metadata, credentials): 400 INVALID_ATTACHMENT', async () => {
      const up = await t
        .http()
        .post('/api/v2/templates/media')
        .set('X-API-Key', acc.key)
        .attach('file', png(), { filename: 'logo.png', contentType: 'image/png' });
      expect(up.status).toBe(201);
      const created = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send(chatappBody({ name: 'with_header', headerAssetId: up.body.data.headerAssetId }));
      expect(created.status).toBe(201);
      const id = created.body.data.template.id as string;
      if (created.body.data.template.status === 'pending')
        await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' }).expect(200);
      const before = await wallet(t, acc);
      for (const headerMediaUrl of [
        `http://127.0.0.1:${new URL(internal.baseUrl).port}/x.png`,
        'https://127.0.0.1/x.png',
        'https://10.0.0.8/x.png',
        'https://169.254.169.254/x.png',
        'https://user:pw@cdn.example.com/x.png',
        'https:///8.8.8.8/x.png',
      ]) {
        const res = await send(t, acc, {
          to: '+966501234567',
          channel: 'chatapp',
          messageType: 'template',
          template: { id, variablesIndexed: ['Sara', 'A-100'], headerMediaUrl },
        });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          success: false,
          code: 'INVALID_ATTACHMENT',
          error: refusedTargetText('template.headerMediaUrl'),
        });
      }
      expect(await wallet(t, acc)).toBe(before);
      expect(internal.requests).toHaveLength(0);
    });
  });

  describe('development rules (WEBHOOK_ALLOW_INSECURE=true: loopback and any port allowed)', () => {
    let t: TestApp;
    let acc: TestAccount;
    beforeAll(async () => {
      t = await createTestApp({ env: smtpEnv(smtp, true) });
      acc = await t.createAccount({ walletBalance: 1000 });
    });
    afterAll(() => t.close());

    it('the attachment is fetched by us (through a checked redirect) and mailed as its bytes', async () => {
      files.reply = (req) =>
        req.path === '/short'
          ? { status: 302, headers: { Location: '/files/invoice.pdf' } }
          : { status: 200, body: 'PDF-BYTES-42' };
      const res = await send(t, acc, mail(`${files.baseUrl}/short`));
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ status: 'sent' });
      expect(files.requests.map((r) => r.path)).toEqual(['/short', '/files/invoice.pdf']);
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0].raw.replace(/\r?\n/g, '')).toContain(
        Buffer.from(JSON.stringify('PDF-BYTES-42')).toString('base64'),
      );
    });

    it('a serialisation trick is refused in every mode: 400, the internal server never called', async () => {
      const res = await send(t, acc, mail(`http:///127.0.0.1:${new URL(internal.baseUrl).port}/secret`));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_ATTACHMENT', error: refusedTargetText('attachment.url') });
      expect(internal.requests).toHaveLength(0);
    });

    it('a redirect to a refused target is not followed: the message fails INVALID_ATTACHMENT, refunded, nothing mailed', async () => {
      files.reply = () => ({
        status: 302,
        headers: { Location: `http://admin:pw@127.0.0.1:${new URL(internal.baseUrl).port}/secret` },
      });
      const before = await wallet(t, acc);
      const res = await send(t, acc, mail(`${files.baseUrl}/a.pdf`));
      expect(res.status).toBe(201);
      const msg = res.body.data.messages[0];
      expect(msg).toMatchObject({ status: 'failed', errorCode: 'INVALID_ATTACHMENT', cost: 0 });
      expect(await wallet(t, acc)).toBe(before);
      expect(internal.requests).toHaveLength(0);
      expect(smtp.received).toHaveLength(0);
      const logged = await t.http().get(`/api/v2/messages/${msg.id}`).set('X-API-Key', acc.key);
      expect(logged.body.data).toMatchObject({ status: 'failed', errorCode: 'INVALID_ATTACHMENT' });
    });
  });
});
