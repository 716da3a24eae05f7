import { getRepositoryToken } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { accountIdOf } from '../../src/common/account-id';
import { GeoPermissionsEntity } from '../../src/fraud/entities/geo-permissions.entity';
import { GeoPermissionsService } from '../../src/fraud/geo-permissions.service';
import { ds } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';

// The owner's and the operator's routes of geo permissions, and what they change for a send.
const DEFAULT_VIEW = {
  channels: { local_sms: ['SA'], chatapp: ['SA'], chatapp_web: ['SA'] },
  ownerSelectable: ['SA'],
  source: 'default',
  updatedAt: null,
};

describe('Geo permission routes (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount();
  });

  const path = '/api/v2/account/geo-permissions';
  const adminPath = (id = acc.id) => `/admin/v1/accounts/${id}/geo-permissions`;
  const get = (key = acc.key) => t.http().get(path).set('X-API-Key', key);
  const patch = (body: unknown, key = acc.key) =>
    t
      .http()
      .patch(path)
      .set('X-API-Key', key)
      .send(body as object);
  const put = (body: unknown, id = acc.id) => t.admin('put', adminPath(id)).send(body as object);
  const sendSms = (to: string) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' } });
  const stored = async () =>
    ds(t).query('SELECT local_sms, chatapp, chatapp_web, owner_selectable FROM geo_permissions WHERE account_id = ?', [
      acc.id,
    ]);

  it('an account without its own permissions reads the configured default (owner and operator)', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { geoPermissions: DEFAULT_VIEW } });
    const op = await t.admin('get', adminPath());
    expect(op.body.data.geoPermissions).toEqual(DEFAULT_VIEW);
  });

  it('operator PUT sets the ceiling; the owner chooses within it and a send follows', async () => {
    expectError(await sendSms('+971501234567'), 400, 'DESTINATION_NOT_ALLOWED');
    const res = await put({ ownerSelectable: ['sa', 'AE', 'KW'] });
    expect(res.status).toBe(200);
    expect(res.body.data.geoPermissions).toEqual({
      channels: { local_sms: ['AE', 'KW', 'SA'], chatapp: ['AE', 'KW', 'SA'], chatapp_web: ['AE', 'KW', 'SA'] },
      ownerSelectable: ['AE', 'KW', 'SA'],
      source: 'account',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await sendSms('+971501234567')).status).toBe(201);

    const own = await patch({ channels: { local_sms: ['SA'], chatapp: [] } });
    expect(own.status).toBe(200);
    expect(own.body.data.geoPermissions.channels).toEqual({
      local_sms: ['SA'],
      chatapp: [],
      chatapp_web: ['AE', 'KW', 'SA'],
    });
    expect(await stored()).toEqual([
      { local_sms: 'SA', chatapp: '', chatapp_web: 'AE,KW,SA', owner_selectable: 'AE,KW,SA' },
    ]);
    expectError(
      await sendSms('+971501234567'),
      400,
      'DESTINATION_NOT_ALLOWED',
      'to: +971501234567 is in AE; this account may send local_sms to SA only (geo permissions)',
    );

    expectError(
      await patch({ channels: { local_sms: ['SA', 'US', 'GB'] } }),
      400,
      'VALIDATION_ERROR',
      'channels.local_sms: GB, US are not among the countries this account may choose (AE, KW, SA)',
    );
    expectError(
      await patch({ channels: { chatapp: ['*'] } }),
      400,
      'VALIDATION_ERROR',
      /^channels\.chatapp: \* is not among/,
    );
    expect((await get()).body.data.geoPermissions.channels.local_sms).toEqual(['SA']);
  });

  it('lowering the ceiling cuts the lists; lists given to the operator must be within it', async () => {
    await put({ ownerSelectable: ['SA', 'AE', 'KW'], channels: { chatapp: ['AE', 'KW'] } }).expect(200);
    const res = await put({ ownerSelectable: ['SA', 'KW'] });
    expect(res.body.data.geoPermissions.channels).toEqual({
      local_sms: ['KW', 'SA'],
      chatapp: ['KW'],
      chatapp_web: ['KW', 'SA'],
    });
    expectError(
      await put({ ownerSelectable: ['SA'], channels: { local_sms: ['AE'] } }),
      400,
      'VALIDATION_ERROR',
      'channels.local_sms: AE is not among the countries this account may choose (SA)',
    );
    const all = await put({ ownerSelectable: ['*'], channels: { local_sms: ['*'] } });
    expect(all.body.data.geoPermissions).toMatchObject({ ownerSelectable: ['*'], channels: { local_sms: ['*'] } });
    expect((await sendSms('+14155550101')).status).toBe(201);
  });

  it('the owner may change lists within the default ceiling without an operator', async () => {
    const res = await patch({ channels: { chatapp_web: [] } });
    expect(res.body.data.geoPermissions).toMatchObject({
      channels: { local_sms: ['SA'], chatapp: ['SA'], chatapp_web: [] },
      ownerSelectable: ['SA'],
      source: 'account',
    });
    expectError(await patch({ channels: { chatapp: ['AE'] } }), 400, 'VALIDATION_ERROR');
  });

  it.each([
    [{ channels: { local_sms: ['XX'] } }, 'channels.local_sms: XX is not an ISO 3166-1 country code'],
    [{ channels: { local_sms: ['SAU'] } }, /local_sms must list two-letter country codes/],
    [{ channels: { local_sms: 'SA' } }, /local_sms must be an array/],
    [{ channels: { email: ['SA'] } }, /property email should not exist/],
    [{}, /channels must be an object/],
  ])('owner PATCH %j is 400 VALIDATION_ERROR', async (body, error) => {
    expectError(await patch(body), 400, 'VALIDATION_ERROR', error);
  });

  it("validation's reads made together are one read, each account its own lists (or the default)", async () => {
    const other = await t.createAccount();
    await put({ ownerSelectable: ['SA', 'AE'], channels: { local_sms: ['AE'] } }).expect(200);
    await put({ ownerSelectable: ['SA', 'KW'], channels: { chatapp: ['KW'] } }, other.id).expect(200);
    const fresh = await t.createAccount();
    const geo = t.app.get(GeoPermissionsService);
    // (A spy that calls through: it counts the reads TypeORM makes.)
    const reads = jest.spyOn(
      t.app.get<Repository<GeoPermissionsEntity>>(getRepositoryToken(GeoPermissionsEntity)),
      'findBy',
    );
    const got = await Promise.all([acc, other, fresh, acc].map((a) => geo.allowedDestinations(accountIdOf(a.id))));
    expect(reads).toHaveBeenCalledTimes(1);
    // Each account's own lists, as its owner reads them one by one.
    const own = async (a: TestAccount) => (await get(a.key).expect(200)).body.data.geoPermissions.channels;
    expect(got).toEqual([await own(acc), await own(other), await own(fresh), await own(acc)]);
    expect(got[0].local_sms).toEqual(['AE']);
    expect(got[1].chatapp).toEqual(['KW']);
    expect(got[2]).toEqual(DEFAULT_VIEW.channels);
    reads.mockRestore();
  });

  it('operator PUT refuses bad ceilings, and an unknown account is 404', async () => {
    expectError(
      await put({ ownerSelectable: ['SA', '*'] }),
      400,
      'VALIDATION_ERROR',
      /"\*" \(every country\) must be the only entry/,
    );
    expectError(await put({}), 400, 'VALIDATION_ERROR', /ownerSelectable/);
    expectError(await put({ ownerSelectable: ['SA'] }, 'acc_missing'), 404, 'NOT_FOUND');
    expectError(await t.admin('get', adminPath('acc_missing')), 404, 'NOT_FOUND');
    expectError(await t.http().get(adminPath()).set('X-API-Key', acc.key), 401, 'UNAUTHORIZED');
  });

  it('owner key only: a member key is 403 whatever its permissions; no key is 401', async () => {
    const member = await t.memberKey(acc.id, ['messages:create', 'messages:read', 'api_keys:read']);
    expectError(await get(member), 403, 'FORBIDDEN');
    expectError(await patch({ channels: { local_sms: ['SA'] } }, member), 403, 'FORBIDDEN');
    expectError(await t.http().get(path), 401, 'UNAUTHORIZED');
    expect(await stored()).toEqual([]);
  });
});

describe('Geo permissions: DEFAULT_ALLOWED_COUNTRIES (e2e)', () => {
  it('SA,AE: both countries pass, others are refused', async () => {
    const t = await createTestApp({ env: { DEFAULT_ALLOWED_COUNTRIES: 'SA,AE' } });
    try {
      const acc = await t.createAccount();
      const sendSms = (to: string) =>
        t
          .http()
          .post('/api/v2/messages/send')
          .set('X-API-Key', acc.key)
          .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' } });
      expect((await sendSms('+971501234567')).status).toBe(201);
      expect((await sendSms('+966501234567')).status).toBe(201);
      expectError(
        await sendSms('+447400123456'),
        400,
        'DESTINATION_NOT_ALLOWED',
        'to: +447400123456 is in GB; this account may send local_sms to AE, SA only (geo permissions)',
      );
      const view = await t.http().get('/api/v2/account/geo-permissions').set('X-API-Key', acc.key);
      expect(view.body.data.geoPermissions).toMatchObject({ ownerSelectable: ['AE', 'SA'], source: 'default' });
    } finally {
      await t.close();
    }
  });

  it('a bad value refuses to boot, naming the variable', async () => {
    await expect(createTestApp({ env: { DEFAULT_ALLOWED_COUNTRIES: 'SA,XX' } })).rejects.toThrow(
      /DEFAULT_ALLOWED_COUNTRIES must be "\*" or comma-separated two-letter ISO 3166-1 country codes/,
    );
  });
});
