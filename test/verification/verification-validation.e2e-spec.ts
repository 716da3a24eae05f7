import { TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { createVerificationApp, PHONE, verificationHelpers } from '../support/verification-helpers';

describe('Verification codes (e2e): validation, billing, OpenAPI and permissions', () => {
  let t: TestApp;
  const { nextPhone, send, check, deliveries, sendOk, rowsOf, wallet } = verificationHelpers(() => t);

  beforeAll(async () => {
    t = await createVerificationApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('validation', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['codeLength 3', { codeLength: 3 }, 'VALIDATION_ERROR', 'codeLength'],
      ['codeLength 9', { codeLength: 9 }, 'VALIDATION_ERROR', 'codeLength'],
      ['codeLength not an integer', { codeLength: 6.5 }, 'VALIDATION_ERROR', 'codeLength'],
      ['expiresInMinutes 0', { expiresInMinutes: 0 }, 'VALIDATION_ERROR', 'expiresInMinutes'],
      ['expiresInMinutes 91', { expiresInMinutes: 91 }, 'VALIDATION_ERROR', 'expiresInMinutes'],
      ['a bad phone number', { to: '12ab' }, 'INVALID_RECIPIENT', 'to'],
      ['a missing to', { to: undefined }, 'VALIDATION_ERROR', 'to'],
      ['an unknown channel', { channel: 'pigeon' }, 'INVALID_CHANNEL', 'channel'],
      ['the web-session channel', { channel: 'chatapp_web' }, 'INVALID_CHANNEL', 'channel'],
      ['an unknown field', { bogus: 1 }, 'VALIDATION_ERROR', 'bogus'],
      ['a template without id', { template: {} }, 'VALIDATION_ERROR', 'template.id'],
    ];
    it.each(cases)('400 for %s, nothing sent or stored', async (_name, patch, code, field) => {
      const acc = await t.createAccount();
      const res = await send(acc, { to: PHONE, channel: 'local_sms', ...patch });
      expectError(res, 400, code);
      expect(res.body.error).toContain(field);
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await deliveries(acc.id, PHONE)).toHaveLength(0);
      expect(await wallet(acc)).toBe(100_000);
    });

    it('check: 400 for a code that is not 4-8 digits or a missing id', async () => {
      const acc = await t.createAccount();
      expectError(await check(acc, 'ver_x', '12a456'), 400, 'VALIDATION_ERROR');
      const num = await t
        .http()
        .post('/api/v2/verification/check')
        .set('X-API-Key', acc.key)
        .send({ verificationId: 'ver_x', code: 123456 });
      expectError(num, 400, 'VALIDATION_ERROR');
      expectError(
        await t.http().post('/api/v2/verification/check').set('X-API-Key', acc.key).send({ code: '123456' }),
        400,
        'VALIDATION_ERROR',
      );
    });
  });

  describe('billing and provider failures', () => {
    it('debits the price of the channel like a message', async () => {
      const acc = await t.createAccount({ walletBalance: 1000 });
      await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      expect(await wallet(acc)).toBe(1000 - t.config.billing.prices.local_sms);
    });

    it('402 INSUFFICIENT_BALANCE when broke: nothing sent, no verification left, send slot given back', async () => {
      const acc = await t.createAccount({ walletBalance: 0 });
      const to = nextPhone();
      expectError(await send(acc, { to, channel: 'local_sms' }), 402, 'INSUFFICIENT_BALANCE');
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await deliveries(acc.id, to)).toHaveLength(0);
      for (let i = 0; i < 5; i++)
        expectError(await send(acc, { to, channel: 'local_sms' }), 402, 'INSUFFICIENT_BALANCE');
      await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 1000 }).expect(200);
      // The failed attempts did not use up the recipient's window.
      for (let i = 0; i < 5; i++) expect((await send(acc, { to, channel: 'local_sms' })).status).toBe(201);
    });

    it('403 SUBSCRIPTION_INACTIVE propagates', async () => {
      const acc = await t.createAccount({ subscriptionActive: false });
      expectError(await send(acc, { to: nextPhone(), channel: 'local_sms' }), 403, 'SUBSCRIPTION_INACTIVE');
      expect(await rowsOf(acc.id)).toHaveLength(0);
    });

    it('503 PROVIDER_UNAVAILABLE propagates, refunds, leaves no verification', async () => {
      const acc = await t.createAccount({ walletBalance: 1000 });
      await t
        .admin('post', '/admin/v1/sandbox/faults')
        .send({ channel: 'local_sms', accountId: acc.id, kind: 'unavailable', count: 1 })
        .expect(201);
      try {
        expectError(await send(acc, { to: nextPhone(), channel: 'local_sms' }), 503, 'PROVIDER_UNAVAILABLE');
      } finally {
        await t.admin('delete', '/admin/v1/sandbox/faults');
      }
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await wallet(acc)).toBe(1000);
    });

    it('a provider rejection is 400 INVALID_RECIPIENT with no verification left', async () => {
      const acc = await t.createAccount();
      const res = await send(acc, { to: '+966500000000', channel: 'local_sms' });
      expectError(res, 400, 'INVALID_RECIPIENT');
      expect(res.body.error).toContain('to');
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await wallet(acc)).toBe(100_000); // the pipeline refunds rejected messages
    });
  });

  describe('OpenAPI', () => {
    it('documents both routes with their request bodies', async () => {
      const res = await t.http().get('/docs-json');
      expect(res.status).toBe(200);
      expect(res.body.paths['/api/v2/verification/send'].post).toBeDefined();
      expect(res.body.paths['/api/v2/verification/check'].post).toBeDefined();
      const send = res.body.components.schemas.SendVerificationDto;
      expect(send.required).toEqual(expect.arrayContaining(['to', 'channel']));
      expect(send.properties.codeLength).toMatchObject({
        minimum: 4,
        maximum: 8,
        description: expect.stringMatching(/Default: 6\.$/),
      });
      expect(send.properties.expiresInMinutes).toMatchObject({
        minimum: 1,
        maximum: 90,
        description: expect.stringMatching(/Default: 10\.$/),
      });
      expect(res.body.components.schemas.CheckVerificationDto.required).toEqual(
        expect.arrayContaining(['verificationId', 'code']),
      );
    });
  });

  describe('permissions', () => {
    it('send needs messages:create and a verified phone; check needs messages:create only', async () => {
      const acc = await t.createAccount();
      const reader = await t.memberKey(acc.id, ['messages:read']);
      const creator = await t.memberKey(acc.id, ['messages:create']);
      expectError(await send(reader, { to: nextPhone(), channel: 'local_sms' }), 403, 'FORBIDDEN');
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      expectError(await check(reader, id, code), 403, 'FORBIDDEN');

      await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ phoneVerified: false }).expect(200);
      expectError(await send(creator, { to: nextPhone(), channel: 'local_sms' }), 403, 'FORBIDDEN');
      expect((await check(creator, id, code)).body.data).toEqual({
        verificationId: id,
        status: 'approved',
        valid: true,
        livemode: true,
      });
      expectError(
        await t.http().post('/api/v2/verification/check').send({ verificationId: id, code }),
        401,
        'UNAUTHORIZED',
      );
    });
  });
});
