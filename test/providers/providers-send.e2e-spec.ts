import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, Env, loadConfig } from '../../src/config/app-config';
import { createTestApp, TestAccount, TestApp, testEnv } from '../support/app';
import { spawnApp } from '../support/spawn-app';
import { HttpFake, RecordedRequest } from '../providers-fakes/http-fake';
import { SmppFake } from '../providers-fakes/smpp-fake';
import { SmtpFake } from '../providers-fakes/smtp-fake';

const SMTP_CREDS = { user: 'mailer', pass: 's3cret' };
const SMPP_CREDS = { systemId: 'esme1', password: 'pw123' };
const BOT_TOKEN = '4242:bot-secret';

/** Cloud-API fake: recipients ending in 9999 are undeliverable (131026), 8888 rate-limited. */
function cloudReply(req: RecordedRequest) {
  // Manual-link lookups: template 77001 lives in business account waba_shop.
  if (req.method === 'GET' && req.path.startsWith('/v21.0/77001?')) {
    return {
      status: 200,
      body: {
        id: '77001',
        name: 'call_or_track',
        language: 'en',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'Hi {{1}}' }],
      },
    };
  }
  if (req.method === 'GET' && req.path.startsWith('/v21.0/waba_shop/message_templates?'))
    return { status: 200, body: { data: [{ id: '77001' }] } };
  const to = String((req.body as { to?: string }).to);
  if (to.endsWith('9999')) return { status: 400, body: { error: { message: 'Message undeliverable', code: 131026 } } };
  if (to.endsWith('8888'))
    return {
      status: 429,
      headers: { 'Retry-After': '5' },
      body: { error: { message: 'Rate limit hit', code: 130429 } },
    };
  return { status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.${to}` }] } };
}

/** Bot-API fake: chat 404 does not exist, chat 429 is rate-limited. */
function botReply(req: RecordedRequest) {
  const chatId = String((req.body as { chat_id?: string }).chat_id);
  if (chatId === '404')
    return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } };
  if (chatId === '429')
    return {
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 2',
        parameters: { retry_after: 2 },
      },
    };
  return { status: 200, body: { ok: true, result: { message_id: 501, chat: { id: Number(chatId) } } } };
}

describe('Real provider adapters through POST /api/v2/messages/send (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let smtp: SmtpFake;
  let smsc: SmppFake;
  let cloud: HttpFake;
  let bot: HttpFake;

  beforeAll(async () => {
    [smtp, smsc, cloud, bot] = await Promise.all([
      new SmtpFake(SMTP_CREDS).start(),
      new SmppFake(SMPP_CREDS).start(),
      new HttpFake().start(),
      new HttpFake().start(),
    ]);
    cloud.reply = cloudReply;
    bot.reply = botReply;
    t = await createTestApp({
      env: {
        PROVIDER_TIMEOUT_MS: '1000',
        PROVIDER_EMAIL: 'smtp',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        SMTP_USER: SMTP_CREDS.user,
        SMTP_PASS: SMTP_CREDS.pass,
        SMTP_FROM: 'Shop <no-reply@shop.example.com>',
        PROVIDER_LOCAL_SMS: 'smpp',
        SMPP_URL: smsc.url,
        SMPP_SYSTEM_ID: SMPP_CREDS.systemId,
        SMPP_PASSWORD: SMPP_CREDS.password,
        PROVIDER_CHATAPP: 'cloud_api',
        CHATAPP_CLOUD_BASE_URL: cloud.baseUrl,
        CHATAPP_CLOUD_TOKEN: 'cloud-token',
        CHATAPP_CLOUD_PHONE_NUMBER_ID: '1055',
        CHATAPP_CLOUD_WABA_ID: 'waba_platform',
        CHATAPP_CLOUD_APP_ID: 'app_1',
        PROVIDER_MESSAGING_BOT: 'bot_api',
        BOT_API_BASE_URL: bot.baseUrl,
        BOT_API_TOKEN: BOT_TOKEN,
      },
    });
    acc = await t.createAccount({ walletBalance: 1000 });
    const botSession = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'shopbot', status: 'ready', kind: 'bot' });
    expect(botSession.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([smtp?.stop(), smsc?.stop(), cloud?.stop(), bot?.stop()]);
  });

  const send = (body: Record<string, unknown>) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
  const logged = async (id: string) =>
    (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key)).body.data;
  const wallet = async () =>
    (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;
  const botBody = (chatId: string, text: string) => ({
    channel: 'messaging_bot',
    messageType: 'free_text',
    chatId,
    conversationContext: { moduleType: 'messaging_bot', accountId: 'shopbot', chatId },
    content: { text },
  });

  describe('email over SMTP', () => {
    it('sends through the SMTP server with our id as Message-ID / X-Message-Ref', async () => {
      const res = await send({
        to: 'Sara@Example.org',
        channel: 'email',
        messageType: 'free_text',
        content: { subject: 'Hello', text: 'Plain body', html: '<b>Rich body</b>' },
      });
      expect(res.status).toBe(201);
      const [m] = res.body.data.messages;
      expect(m).toMatchObject({ to: 'sara@example.org', channel: 'email', status: 'sent' });
      const mail = smtp.received.at(-1)!;
      expect(mail.to).toEqual(['sara@example.org']);
      expect(mail.raw).toContain(`X-Message-Ref: ${m.id}`);
      expect(mail.raw).toContain(`Message-ID: <${m.id}@shop.example.com>`);
      expect(await logged(m.id)).toMatchObject({
        status: 'sent',
        providerMessageId: `<${m.id}@shop.example.com>`,
        errorCode: null,
      });
    });

    it('a 5xx refusal leaves the message failed PROVIDER_REJECTED and unpaid', async () => {
      const before = await wallet();
      const res = await send({
        to: 'reject@example.org',
        channel: 'email',
        messageType: 'free_text',
        content: { subject: 'Hi', text: 'x' },
      });
      expect(res.status).toBe(201);
      const [m] = res.body.data.messages;
      expect(m.status).toBe('failed');
      expect(await logged(m.id)).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_REJECTED' });
      expect(await wallet()).toBe(before);
    });

    it('a 4xx deferral is 503 PROVIDER_UNAVAILABLE with nothing debited', async () => {
      const before = await wallet();
      const res = await send({
        to: 'busy@example.org',
        channel: 'email',
        messageType: 'free_text',
        content: { subject: 'Hi', text: 'x' },
      });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'PROVIDER_UNAVAILABLE' });
      expect(await wallet()).toBe(before);
    });
  });

  describe('email templates over SMTP: variables are text', () => {
    const LINK = `<a href="https://evil.example/x?a=1&b='2'">click</a>`;
    /** The mail's body with quoted-printable soft breaks and escapes undone (ASCII content). */
    const decoded = (raw: string) =>
      raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    const emailTemplate = async (content: string) => {
      const res = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send({
          name: `mail_${Math.random().toString(36).slice(2, 8).replace(/\d/g, 'x')}`,
          category: 'email',
          subType: 'utility',
          content,
          emailSubject: 'Hi {{1}}',
        });
      expect(res.status).toBe(201);
      return res.body.data.template.id as string;
    };
    const sendTemplate = (id: string, to: string) =>
      send({ to, channel: 'email', messageType: 'template', template: { id, variablesIndexed: [LINK] } });

    it('a text template stays text/plain with the tag literal (no html part)', async () => {
      const res = await sendTemplate(await emailTemplate('Hello {{1}}, welcome.'), 'plain@example.org');
      expect(res.status).toBe(201);
      const mail = smtp.received.at(-1)!;
      expect(mail.to).toEqual(['plain@example.org']);
      expect(mail.raw).toMatch(/Content-Type: text\/plain/);
      expect(mail.raw).not.toMatch(/text\/html/);
      expect(decoded(mail.raw)).toContain(`Hello ${LINK}, welcome.`);
    });

    it('an html template gets the variable escaped (&, <, >, ", \')', async () => {
      const res = await sendTemplate(await emailTemplate('<p>Hello {{1}}</p>'), 'rich@example.org');
      expect(res.status).toBe(201);
      const mail = smtp.received.at(-1)!;
      expect(mail.to).toEqual(['rich@example.org']);
      expect(mail.raw).toMatch(/Content-Type: text\/html/);
      const body = decoded(mail.raw);
      expect(body).toContain(
        '<p>Hello &lt;a href=&quot;https://evil.example/x?a=1&amp;b=&#39;2&#39;&quot;&gt;click&lt;/a&gt;</p>',
      );
      expect(body).not.toContain('<a href');
    });
  });

  describe('local SMS over SMPP', () => {
    it('submits over the bound session with our id as the client reference', async () => {
      const res = await send({
        to: '0501234567',
        channel: 'local_sms',
        messageType: 'free_text',
        content: { text: 'Your code is 1234' },
      });
      expect(res.status).toBe(201);
      const [m] = res.body.data.messages;
      expect(m).toMatchObject({ to: '+966501234567', status: 'sent' });
      const submit = smsc.submits.at(-1)!;
      expect(submit).toMatchObject({ destination: '966501234567', text: 'Your code is 1234', clientRef: m.id });
      expect(await logged(m.id)).toMatchObject({ status: 'sent', providerMessageId: `smsc-${smsc.submits.length}` });
    });

    it('ESME_RINVDSTADR -> failed PROVIDER_REJECTED', async () => {
      const res = await send({
        to: '+966501231111',
        channel: 'local_sms',
        messageType: 'free_text',
        content: { text: 'x' },
      });
      expect(res.status).toBe(201);
      expect(await logged(res.body.data.messages[0].id)).toMatchObject({
        status: 'failed',
        errorCode: 'PROVIDER_REJECTED',
      });
    });

    it('ESME_RTHROTTLED -> 429 PROVIDER_RATE_LIMITED', async () => {
      const res = await send({
        to: '+966501232222',
        channel: 'local_sms',
        messageType: 'free_text',
        content: { text: 'x' },
      });
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('PROVIDER_RATE_LIMITED');
    });

    it('an unanswered submit_sm -> 503 PROVIDER_UNAVAILABLE', async () => {
      const res = await send({
        to: '+966501233333',
        channel: 'local_sms',
        messageType: 'free_text',
        content: { text: 'x' },
      });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
    });
  });

  describe('official chat-app over the Cloud API', () => {
    it('posts the Cloud API payload with biz_opaque_callback_data = our id', async () => {
      const res = await send({
        to: '+966501234567',
        channel: 'chatapp',
        messageType: 'free_text',
        content: { text: 'Hello from the shop' },
      });
      expect(res.status).toBe(201);
      const [m] = res.body.data.messages;
      expect(m.status).toBe('sent');
      const req = cloud.requests.at(-1)!;
      expect(req.path).toBe('/v21.0/1055/messages');
      expect(req.headers.authorization).toBe('Bearer cloud-token');
      expect(req.body).toMatchObject({
        messaging_product: 'whatsapp',
        to: '966501234567',
        type: 'text',
        text: { body: 'Hello from the shop' },
        biz_opaque_callback_data: m.id,
      });
      expect(await logged(m.id)).toMatchObject({ status: 'sent', providerMessageId: 'wamid.966501234567' });
    });

    it('a template URL button is addressed by its position among ALL the template buttons ([phone, url] -> index 1)', async () => {
      const sender = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/official-senders`)
        .send({ displayName: 'Shop', wabaId: 'waba_shop', phoneNumberId: 'PN_SHOP' });
      const created = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send({
          name: 'call_or_track',
          category: 'chatapp',
          subType: 'utility',
          language: 'en',
          body: 'Hi {{1}}',
          bodyParameters: [{ index: 1, label: 'Sara' }],
          creationMode: 'manual_external_id',
          providerTemplateId: '77001',
          manualVariableCount: 1,
          officialSenderId: sender.body.data.officialSender.id,
          buttons: [
            { type: 'phone', text: 'Call', url: '+966500000002' },
            {
              type: 'url',
              text: 'Track',
              url: 'https://shop.example/t/{{1}}',
              urlExample: 'https://shop.example/t/AB12',
            },
          ],
        });
      expect(created.status).toBe(201);
      const id = created.body.data.template.id as string;
      if (created.body.data.template.status === 'pending')
        await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' }).expect(200);
      const res = await send({
        to: '+966501234567',
        channel: 'chatapp',
        messageType: 'template',
        template: { id, variablesIndexed: ['Sara'], buttonVariables: ['AB12'] },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0].status).toBe('sent');
      // Sent from the template's own sender (its phone-number id), not the platform number.
      expect(cloud.requests.at(-1)!.path).toBe('/v21.0/PN_SHOP/messages');
      expect(cloud.requests.at(-1)!.body).toMatchObject({
        type: 'template',
        template: {
          name: 'call_or_track',
          components: [
            { type: 'body', parameters: [{ type: 'text', text: 'Sara' }] },
            { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'AB12' }] },
          ],
        },
      });
    });

    it('an undeliverable recipient (131026) -> failed PROVIDER_REJECTED', async () => {
      const res = await send({
        to: '+966501239999',
        channel: 'chatapp',
        messageType: 'free_text',
        content: { text: 'x' },
      });
      expect(res.status).toBe(201);
      expect(await logged(res.body.data.messages[0].id)).toMatchObject({
        status: 'failed',
        errorCode: 'PROVIDER_REJECTED',
      });
    });

    it('130429 -> 429 PROVIDER_RATE_LIMITED with retryAfterSeconds', async () => {
      const res = await send({
        to: '+966501238888',
        channel: 'chatapp',
        messageType: 'free_text',
        content: { text: 'x' },
      });
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 5 });
    });
  });

  describe('messaging bot over the Bot API', () => {
    it('calls sendMessage with chat_id and text', async () => {
      const res = await send(botBody('777001', 'Hi from the bot'));
      expect(res.status).toBe(201);
      const [m] = res.body.data.messages;
      expect(m.status).toBe('sent');
      expect(bot.requests.at(-1)).toMatchObject({
        path: `/bot${BOT_TOKEN}/sendMessage`,
        body: { chat_id: '777001', text: 'Hi from the bot' },
      });
      expect(await logged(m.id)).toMatchObject({ status: 'sent', providerMessageId: '777001:501' });
    });

    it('"chat not found" -> failed PROVIDER_REJECTED', async () => {
      const res = await send(botBody('404', 'x'));
      expect(res.status).toBe(201);
      expect(await logged(res.body.data.messages[0].id)).toMatchObject({
        status: 'failed',
        errorCode: 'PROVIDER_REJECTED',
      });
    });

    it('429 with retry_after -> 429 PROVIDER_RATE_LIMITED', async () => {
      const res = await send(botBody('429', 'x'));
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 2 });
    });
  });
});

describe('Real provider adapters: start-up configuration checks (e2e)', () => {
  it.each([
    [{ PROVIDER_EMAIL: 'smtp', SMTP_FROM: 'a@b.example' }, 'SMTP_HOST is required when PROVIDER_EMAIL=smtp'],
    [
      { PROVIDER_LOCAL_SMS: 'smpp', SMPP_URL: 'smpp://127.0.0.1:1', SMPP_SYSTEM_ID: 'x' },
      'SMPP_PASSWORD is required when PROVIDER_LOCAL_SMS=smpp',
    ],
    [
      {
        PROVIDER_CHATAPP: 'cloud_api',
        CHATAPP_CLOUD_TOKEN: 't',
        CHATAPP_CLOUD_WABA_ID: 'w',
        CHATAPP_CLOUD_APP_ID: 'a',
      },
      'CHATAPP_CLOUD_PHONE_NUMBER_ID is required when PROVIDER_CHATAPP=cloud_api',
    ],
    // Needed by template submissions from the platform sender: before, only such a request failed.
    [
      {
        PROVIDER_CHATAPP: 'cloud_api',
        CHATAPP_CLOUD_TOKEN: 't',
        CHATAPP_CLOUD_PHONE_NUMBER_ID: 'p',
        CHATAPP_CLOUD_APP_ID: 'a',
      },
      'CHATAPP_CLOUD_WABA_ID is required when PROVIDER_CHATAPP=cloud_api',
    ],
    // Template header media go up through the app's resumable upload sessions.
    [
      {
        PROVIDER_CHATAPP: 'cloud_api',
        CHATAPP_CLOUD_TOKEN: 't',
        CHATAPP_CLOUD_PHONE_NUMBER_ID: 'p',
        CHATAPP_CLOUD_WABA_ID: 'w',
      },
      'CHATAPP_CLOUD_APP_ID is required when PROVIDER_CHATAPP=cloud_api',
    ],
    [
      { PROVIDER_MESSAGING_BOT: 'bot_api', BOT_API_TOKEN: 't', BOT_API_BASE_URL: 'nope' },
      'BOT_API_BASE_URL is not a valid URL: "nope"',
    ],
    [{ PROVIDER_CHATAPP_WEB: 'waha' }, 'WAHA_BASE_URL is required when PROVIDER_CHATAPP_WEB=waha'],
  ])(
    'a selected adapter with a missing or bad setting is refused by the configuration, before any module starts (%j)',
    (env, message) => {
      expect(() => loadConfig(testEnv({ DATABASE_URL: 'sqlite::memory:', ...(env as Env) }))).toThrow(
        new ConfigError(message),
      );
    },
  );

  it('the real process (main.ts) exits 1 with one line naming every missing setting, and opens no database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'msg-boot-'));
    const app = spawnApp(
      testEnv({
        DATABASE_URL: `sqlite:${join(dir, 'data', 'messaging.sqlite')}`,
        PORT: '0',
        HOST: '127.0.0.1',
        PROVIDER_EMAIL: 'smtp',
        SMTP_FROM: 'Shop <no-reply@shop.example>',
        PROVIDER_CHATAPP: 'cloud_api',
        CHATAPP_CLOUD_TOKEN: 'cloud-token',
        CHATAPP_CLOUD_PHONE_NUMBER_ID: '1055',
        CHATAPP_CLOUD_APP_ID: 'app_1',
      }),
    );
    try {
      expect(await app.exited).toBe(1);
    } finally {
      await app.stop();
    }
    expect(app.output().trim()).toBe(
      'Configuration error: SMTP_HOST is required when PROVIDER_EMAIL=smtp; CHATAPP_CLOUD_WABA_ID is required when PROVIDER_CHATAPP=cloud_api',
    );
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });
});
