import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountEntity } from '../../src/accounts/entities/account.entity';
import { Public, RequirePermissions } from '../../src/auth/decorators';
import { createTestApp, REQUEST_ID_RE, TestApp } from '../support/app';
import { expectEnvelope } from '../support/envelope';

@Controller('test-only')
class BoomController {
  @Get('boom')
  @Public()
  boom(): never {
    throw new Error('SELECT * FROM secret_table -- internal detail');
  }

  @Get('no-policy')
  noPolicy(): string {
    return 'should never be reachable';
  }

  @Get('read')
  @RequirePermissions('messages:read')
  read(): { ok: true } {
    return { ok: true };
  }
}

describe('Foundation (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ controllers: [BoomController] });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('authentication', () => {
    it('401 UNAUTHORIZED without a key', async () => {
      expectEnvelope(await t.http().get('/api/v2/account'), 401, 'UNAUTHORIZED');
    });

    it('401 UNAUTHORIZED with a bad key', async () => {
      expectEnvelope(await t.http().get('/api/v2/account').set('X-API-Key', 'msk_not-a-real-key'), 401, 'UNAUTHORIZED');
    });

    it('403 FORBIDDEN for a member key missing the permission', async () => {
      const acc = await t.createAccount();
      const member = await t.memberKey(acc.id, ['messages:read']);
      expectEnvelope(await t.http().get('/api/v2/account').set('X-API-Key', member), 403, 'FORBIDDEN');
      const ok = await t.http().get('/test-only/read').set('X-API-Key', member);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ ok: true });
    });

    it('a member key with api_keys:read reads the account', async () => {
      const acc = await t.createAccount();
      const member = await t.memberKey(acc.id, ['api_keys:read']);
      const res = await t.http().get('/api/v2/account').set('X-API-Key', member);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(acc.id);
    });

    it('403 FORBIDDEN on creating routes when the account phone is not verified; reads still work', async () => {
      const acc = await t.createAccount({ phoneVerified: false });
      const send = await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send({ to: '+966501234567', channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' } });
      expectEnvelope(send, 403, 'FORBIDDEN');
      expect(send.body.error).toMatch(/phone/i);
      const template = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send({ name: 'welcome', category: 'sms', subType: 'utility', content: 'Hi' });
      expectEnvelope(template, 403, 'FORBIDDEN');
      expect((await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).status).toBe(200);
      const log = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key);
      expect(log.status).toBe(200);
      expect(log.body.data.messages).toEqual([]);
    });

    it('a route with no access policy is refused even with an owner key', async () => {
      const acc = await t.createAccount();
      expectEnvelope(await t.http().get('/test-only/no-policy').set('X-API-Key', acc.key), 403, 'FORBIDDEN');
    });
  });

  describe('error envelope', () => {
    it('404 NOT_FOUND for an unknown route, with request id header', async () => {
      expectEnvelope(await t.http().get('/api/v2/nope'), 404, 'NOT_FOUND');
    });

    it('400 INVALID_REQUEST_BODY for malformed JSON', async () => {
      const res = await t.admin('post', '/admin/v1/accounts').set('Content-Type', 'application/json').send('{"name": ');
      expectEnvelope(res, 400, 'INVALID_REQUEST_BODY');
    });

    it('400 VALIDATION_ERROR naming the field', async () => {
      const res = await t.admin('post', '/admin/v1/accounts').send({ name: 'x', walletBalance: -5 });
      expectEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error).toContain('walletBalance');
    });

    it('400 VALIDATION_ERROR for unknown fields', async () => {
      const res = await t.admin('post', '/admin/v1/accounts').send({ name: 'x', bogus: 1 });
      expectEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error).toContain('bogus');
    });

    it('413 PAYLOAD_TOO_LARGE for a body over the limit', async () => {
      const res = await t
        .admin('post', '/admin/v1/accounts')
        .send({ name: 'x'.repeat(t.config.server.bodyLimitBytes + 10) });
      expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('500 INTERNAL_ERROR without stack or SQL', async () => {
      const res = await t.http().get('/test-only/boom');
      expectEnvelope(res, 500, 'INTERNAL_ERROR');
      expect(JSON.stringify(res.body)).not.toMatch(/secret_table|SELECT|at .*\.ts/);
    });

    it('X-Request-Id on successful responses too', async () => {
      const res = await t.http().get('/health/live');
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(REQUEST_ID_RE);
    });
  });

  describe('admin API', () => {
    it('401 without or with a wrong admin token', async () => {
      expectEnvelope(await t.http().post('/admin/v1/accounts').send({ name: 'x' }), 401, 'UNAUTHORIZED');
      expectEnvelope(
        await t
          .http()
          .post('/admin/v1/accounts')
          .set('Authorization', 'Bearer wrong-token-xxxxxxxx')
          .send({ name: 'x' }),
        401,
        'UNAUTHORIZED',
      );
    });

    it('creates an account with an owner key shown once; the key works', async () => {
      const res = await t
        .admin('post', '/admin/v1/accounts')
        .send({ name: 'Acme', walletBalance: 2500, freeMessages: 3, planName: 'Pro', messageQuota: 100 });
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      const { account, apiKey } = res.body.data;
      expect(account).toMatchObject({
        name: 'Acme',
        walletBalance: 2500,
        freeMessages: 3,
        phoneVerified: true,
        subscriptionActive: true,
        plan: { name: 'Pro', messageQuota: 100, messagesUsed: 0 },
      });
      expect(apiKey).toMatchObject({
        role: 'owner',
        permissions: ['messages:create', 'messages:read', 'api_keys:read'],
      });
      expect(apiKey.key).toMatch(/^msk_[A-Za-z0-9_-]{40}$/);
      const me = await t.http().get('/api/v2/account').set('X-API-Key', apiKey.key);
      expect(me.status).toBe(200);
      expect(me.body.data.id).toBe(account.id);
    });

    it('GET /api/v2/account shows the figures after an admin PATCH', async () => {
      const acc = await t.createAccount();
      const patch = await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({
        walletBalance: 777,
        freeMessages: 9,
        planName: 'Gold',
        messageQuota: 50,
        subscriptionActive: false,
        phoneVerified: false,
      });
      expect(patch.status).toBe(200);
      const res = await t.http().get('/api/v2/account').set('X-API-Key', acc.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: acc.id,
          name: 'Test account',
          walletBalance: 777,
          currency: 'SAR',
          plan: { name: 'Gold', messageQuota: 50, messagesUsed: 0 },
          freeMessages: 9,
          subscriptionActive: false,
          phoneVerified: false,
          createdAt: expect.any(String),
          livemode: true,
        },
      });
    });

    it('create without a name, or with null in a NOT NULL field, is 400 VALIDATION_ERROR and creates nothing', async () => {
      const accounts = t.app.get(DataSource).getRepository(AccountEntity);
      const before = await accounts.count();
      for (const body of [
        {},
        { name: null },
        { name: 'x', walletBalance: null },
        { name: 'x', phoneVerified: null },
        { name: 'x', messageQuota: null },
      ]) {
        const res = await t.admin('post', '/admin/v1/accounts').send(body);
        expectEnvelope(res, 400, 'VALIDATION_ERROR');
        expect(res.body.error).toContain(Object.keys(body).pop() ?? 'name');
      }
      expect(await accounts.count()).toBe(before);
    });

    it('PATCH with null in a NOT NULL field is 400 VALIDATION_ERROR and changes nothing; planName null clears the plan', async () => {
      const acc = await t.createAccount({ planName: 'Pro' });
      for (const field of [
        'name',
        'walletBalance',
        'phoneVerified',
        'subscriptionActive',
        'freeMessages',
        'messageQuota',
        'messagesUsed',
      ]) {
        const res = await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ [field]: null });
        expectEnvelope(res, 400, 'VALIDATION_ERROR');
        expect(res.body.error).toContain(field);
      }
      const cleared = await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ planName: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data.account).toMatchObject({
        name: 'Test account',
        walletBalance: 100_000,
        plan: { name: null },
      });
    });

    it('counters above their column range are 400 VALIDATION_ERROR; the largest values are accepted', async () => {
      const acc = await t.createAccount();
      for (const [field, max] of [
        ['messageQuota', 2147483647],
        ['messagesUsed', 2147483647],
        ['freeMessages', 2147483647],
        ['walletBalance', Number.MAX_SAFE_INTEGER],
      ] as const) {
        const over = await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ [field]: max + 1 });
        expectEnvelope(over, 400, 'VALIDATION_ERROR');
        expect(over.body.error).toContain(field);
        const ok = await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ [field]: max });
        expect(ok.status).toBe(200);
      }
      const res = await t.admin('post', '/admin/v1/accounts').send({ name: 'x', messageQuota: 2147483648 });
      expectEnvelope(res, 400, 'VALIDATION_ERROR');
    });

    it('PATCH of an unknown account is 404', async () => {
      expectEnvelope(
        await t.admin('patch', '/admin/v1/accounts/acc_missing').send({ walletBalance: 1 }),
        404,
        'NOT_FOUND',
      );
    });

    it('an unknown permission name is 400 and issues nothing', async () => {
      const acc = await t.createAccount();
      const res = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/api-keys`)
        .send({ role: 'member', permissions: ['messages:read', 'messages:delete'] });
      expectEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error).toContain('permissions');
    });

    it('issues a member key with exactly the listed permissions', async () => {
      const acc = await t.createAccount();
      const res = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/api-keys`)
        .send({ role: 'member', permissions: ['messages:read'] });
      expect(res.status).toBe(201);
      expect(res.body.data.apiKey).toMatchObject({ role: 'member', permissions: ['messages:read'] });
    });
  });

  describe('operations', () => {
    it('health live and ready', async () => {
      expect((await t.http().get('/health/live')).body).toEqual({ status: 'ok' });
      expect((await t.http().get('/health/ready')).body).toEqual({
        status: 'ok',
        database: 'up',
        redis: process.env.TEST_REDIS_URL ? 'up' : 'not_configured',
        migrations: 'up_to_date',
      });
    });

    it('OpenAPI: the public document lists the API-key routes and error codes; the operator document the admin routes', async () => {
      const res = await t.http().get('/docs-json');
      expect(res.status).toBe(200);
      expect(res.body.paths['/api/v2/account']).toBeDefined();
      expect(res.body.paths['/admin/v1/accounts']).toBeUndefined();
      const admin = await t.http().get('/docs/admin-json');
      expect(admin.status).toBe(200);
      expect(admin.body.paths['/admin/v1/accounts']).toBeDefined();
      expect(admin.body.components.securitySchemes.admin).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(Object.keys(admin.body.paths).some((path) => path.startsWith('/api/'))).toBe(false);
      expect(res.body.components.securitySchemes.apiKey).toMatchObject({
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
      });
      expect(res.body.components.schemas.ErrorCode.enum).toEqual(
        expect.arrayContaining(['RATE_LIMITED', 'INSUFFICIENT_BALANCE', 'JOB_NOT_FOUND']),
      );
    });
  });
});
