import { DataSource } from 'typeorm';
import { TestApp } from '../support/app';
import { senderHelpers, startSendersApp } from '../support/senders-helpers';
import { WebhookReceiver } from '../support/webhook-receiver';

const ID_RE = /^snd_[0-9a-z]{24}$/;

describe('SMS senders (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ({ t, receiver } = await startSendersApp());
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const { create, storedRow } = senderHelpers(
    () => t,
    () => receiver,
  );

  describe('POST /api/v2/sms-senders', () => {
    it('201 with exactly the spec body, status pending, no webhook', async () => {
      const acc = await t.createAccount();
      const res = await create(acc.key, { name: 'MyShop' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        message: expect.any(String),
        data: {
          smsSender: {
            id: expect.stringMatching(ID_RE),
            name: 'MyShop',
            status: 'pending',
            type: 'transactional',
            isDefault: false,
            webhookConfigured: false,
            livemode: true,
          },
        },
      });
      const row = await storedRow(res.body.data.smsSender.id);
      expect(row).toMatchObject({
        account_id: acc.id,
        name: 'MyShop',
        status: 'pending',
        webhook_url: null,
        sealed_webhook_secret: null,
      });
    });

    it('webhookConfigured with a webhook; the secret is sealed at rest and never returned', async () => {
      const acc = await t.createAccount();
      const secret = 'very-secret-value-123';
      const res = await create(acc.key, { name: 'Hooked1', webhookUrl: receiver.url, webhookSecret: secret });
      expect(res.status).toBe(201);
      expect(res.body.data.smsSender.webhookConfigured).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain(secret);
      const row = await storedRow(res.body.data.smsSender.id);
      expect(typeof row.sealed_webhook_secret).toBe('string');
      expect(row.sealed_webhook_secret).not.toContain(secret);
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(secret);
      expect(JSON.stringify(list.body)).not.toContain('sealed');
    });

    it('403 FORBIDDEN for a member key, even with every permission; nothing is created', async () => {
      const acc = await t.createAccount();
      const member = await t.memberKey(acc.id, ['messages:create', 'messages:read', 'api_keys:read']);
      const res = await create(member, { name: 'Member1' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders).toEqual([]);
    });

    it('401 without a key', async () => {
      const res = await t.http().post('/api/v2/sms-senders').send({ name: 'NoKey' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });

    it('duplicate name in the account -> 400 VALIDATION_ERROR (case-insensitive); another account may use it', async () => {
      const acc = await t.createAccount();
      expect((await create(acc.key, { name: 'Dupe' })).status).toBe(201);
      for (const name of ['Dupe', 'DUPE']) {
        const res = await create(acc.key, { name });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          success: false,
          code: 'VALIDATION_ERROR',
          error: `name "${name}" is already used by a sender of this account`,
        });
      }
      const other = await t.createAccount();
      expect((await create(other.key, { name: 'Dupe' })).status).toBe(201);
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders).toHaveLength(1);
    });

    it('concurrent requests for one name: the unique index lets exactly one through, the rest get 400', async () => {
      const acc = await t.createAccount();
      const results = await Promise.all(Array.from({ length: 6 }, () => create(acc.key, { name: 'Racer' })));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 201))
        expect(r.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      const count = await t.app
        .get(DataSource)
        .query('SELECT COUNT(*) AS n FROM sms_senders WHERE account_id = ?', [acc.id]);
      expect(Number(count[0].n)).toBe(1);
    });

    it.each([
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'TwelveChars1' }, 'name'],
      [{ name: 'bad-name' }, 'name'],
      [{ name: 'has space' }, 'name'],
      [{ name: '123456' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'NoSecret', webhookUrl: 'https://example.com/hook' }, 'webhookSecret'],
      [{ name: 'EmptySecret', webhookUrl: 'https://example.com/hook', webhookSecret: '' }, 'webhookSecret'],
      [
        { name: 'CtrlNewline', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\r\nX-Injected: 1' },
        'webhookSecret',
      ],
      [{ name: 'CtrlNul', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\u0000def' }, 'webhookSecret'],
      [{ name: 'CtrlTab', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\tdef' }, 'webhookSecret'],
      [{ name: 'CtrlDel', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\u007f' }, 'webhookSecret'],
      [{ name: 'NonAscii', webhookUrl: 'https://example.com/hook', webhookSecret: 'sécret' }, 'webhookSecret'],
      [{ name: 'EdgeSpace', webhookUrl: 'https://example.com/hook', webhookSecret: ' abc' }, 'webhookSecret'],
      [{ name: 'NoUrl', webhookSecret: 'abc' }, 'webhookUrl'],
      [{ name: 'BadUrl', webhookUrl: 'not a url', webhookSecret: 'abc' }, 'webhookUrl'],
      [{ name: 'FtpUrl', webhookUrl: 'ftp://example.com/x', webhookSecret: 'abc' }, 'webhookUrl'],
      [{ name: 'Extra', unknown: 1 }, 'unknown'],
    ])('400 VALIDATION_ERROR for %j (names %s)', async (body, field) => {
      const acc = await t.createAccount();
      const res = await create(acc.key, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.body.error).toContain(field);
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders).toEqual([]);
    });

    it('11 alphanumeric characters is the maximum accepted', async () => {
      const acc = await t.createAccount();
      expect((await create(acc.key, { name: 'Abcdefghi01' })).status).toBe(201);
    });
  });

  describe('GET /api/v2/sms-senders', () => {
    it('lists own senders only; a member needs messages:read', async () => {
      const acc = await t.createAccount();
      const other = await t.createAccount();
      await create(acc.key, { name: 'ListA' });
      await create(acc.key, { name: 'ListB' });
      await create(other.key, { name: 'ListC' });
      const reader = await t.memberKey(acc.id, ['messages:read']);
      const res = await t.http().get('/api/v2/sms-senders').set('X-API-Key', reader);
      expect(res.status).toBe(200);
      expect(res.body.data.smsSenders.map((s: { name: string }) => s.name)).toEqual(['ListA', 'ListB']);
      expect(res.body.data.smsSenders[0]).toEqual({
        id: expect.stringMatching(ID_RE),
        name: 'ListA',
        status: 'pending',
        type: 'transactional',
        isDefault: false,
        webhookConfigured: false,
        reason: null,
        reviewedAt: null,
        createdAt: expect.any(String),
        livemode: true,
      });
      const noPerm = await t.memberKey(acc.id, ['api_keys:read']);
      const denied = await t.http().get('/api/v2/sms-senders').set('X-API-Key', noPerm);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
    });
  });
});
