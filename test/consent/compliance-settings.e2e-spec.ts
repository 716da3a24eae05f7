import { DataSource } from 'typeorm';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';

// Promotional sender names (issue 28 item 5) and the account's compliance settings (item 6).

describe('Promotional senders and compliance settings (e2e)', () => {
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

  const createSender = (body: Record<string, unknown>) =>
    t.http().post('/api/v2/sms-senders').set('X-API-Key', acc.key).send(body);
  const getCompliance = (key = acc.key) => t.http().get('/api/v2/account/compliance').set('X-API-Key', key);
  const patch = (body: Record<string, unknown>, key = acc.key) =>
    t.http().patch('/api/v2/account/compliance').set('X-API-Key', key).send(body);

  it('a sender is transactional by default; a promotional name ends in -AD within 11 characters', async () => {
    const plain = await createSender({ name: 'MyShop' });
    expect(plain.status).toBe(201);
    expect(plain.body.data.smsSender).toMatchObject({ name: 'MyShop', type: 'transactional', status: 'pending' });

    const promo = await createSender({ name: 'MyShop-AD', type: 'promotional' });
    expect(promo.status).toBe(201);
    expect(promo.body.data.smsSender).toMatchObject({ name: 'MyShop-AD', type: 'promotional' });
    const stored = await t.app
      .get(DataSource)
      .query('SELECT type FROM sms_senders WHERE id = ?', [promo.body.data.smsSender.id]);
    expect(stored[0].type).toBe('promotional');
    const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
    expect(list.body.data.smsSenders.map((s: { name: string; type: string }) => `${s.name}:${s.type}`)).toEqual([
      'MyShop:transactional',
      'MyShop-AD:promotional',
    ]);
  });

  it.each([
    [{ name: 'MyShop', type: 'promotional' }, /promotional sender must end in -AD/],
    [{ name: 'MyShopXYZ-AD', type: 'promotional' }, /a promotional name ends in -AD and is at most 11/],
    [{ name: 'Shop-AD' }, /reserved for promotional senders/],
    [{ name: 'Shop-ad', type: 'promotional' }, /a promotional name ends in -AD/],
    [{ name: 'Shop', type: 'marketing' }, /type must be one of: transactional, promotional/],
  ])('refuses %j with 400 VALIDATION_ERROR', async (body, message) => {
    const res = await createSender(body);
    expectError(res, 400, 'VALIDATION_ERROR', message);
    const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
    expect(list.body.data.smsSenders).toEqual([]);
  });

  it('reads the defaults, then keeps what a PATCH changes and leaves the rest', async () => {
    const def = await getCompliance();
    expect(def.status).toBe(200);
    expect(def.body.data.compliance).toEqual({
      marketingWindow: { start: '09:00', end: '22:00', days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
      defaultTimeZones: {},
      footer: { ar: 'لإيقاف الرسائل أرسل إيقاف', en: 'Reply STOP to opt out' },
      allowedLinkDomains: [],
      source: 'default',
      updatedAt: null,
    });
    const res = await patch({
      marketingWindow: { start: '08:30', days: ['thu', 'sun', 'mon'] },
      defaultTimeZones: { us: 'America/New_York' },
      allowedLinkDomains: ['Example.com', 'shop.example.org.'],
      footer: { en: 'Text STOP to end' },
    });
    expect(res.status).toBe(200);
    const want = {
      marketingWindow: { start: '08:30', end: '22:00', days: ['sun', 'mon', 'thu'] },
      defaultTimeZones: { US: 'America/New_York' },
      footer: { ar: 'لإيقاف الرسائل أرسل إيقاف', en: 'Text STOP to end' },
      allowedLinkDomains: ['example.com', 'shop.example.org'],
      source: 'account',
    };
    expect(res.body.data.compliance).toMatchObject(want);
    const again = await getCompliance();
    expect(again.body.data.compliance).toMatchObject(want);
    expect(typeof again.body.data.compliance.updatedAt).toBe('string');
  });

  it.each([
    [{ marketingWindow: { start: '9:00' } }, 'marketingWindow.start must be a local time HH:MM (00:00 to 23:59)'],
    [{ marketingWindow: { start: '22:00', end: '09:00' } }, 'marketingWindow.start must be before marketingWindow.end'],
    [{ marketingWindow: { days: [] } }, 'marketingWindow.days must name at least one day'],
    [{ marketingWindow: { days: ['monday'] } }, /^marketingWindow.days: monday is not one of sun, mon/],
    [{ defaultTimeZones: { XX: 'UTC' } }, 'defaultTimeZones: XX is not an ISO 3166-1 country code'],
    [
      { defaultTimeZones: { SA: 'Europe/Paris' } },
      "defaultTimeZones.SA must be one of the country's zones: Asia/Riyadh",
    ],
    [
      { allowedLinkDomains: ['https://example.com/x'] },
      /^allowedLinkDomains: https:\/\/example.com\/x is not a host name/,
    ],
    [{ footer: { ar: '   ' } }, 'footer.ar must be 1 to 70 characters of opt-out instructions'],
    [{ marketingWindow: { open: '09:00' } }, /open/],
    [{ allowedLinkDomains: 'example.com' }, /allowedLinkDomains/],
  ])('refuses %j with 400 VALIDATION_ERROR and changes nothing', async (body, message) => {
    expectError(await patch(body), 400, 'VALIDATION_ERROR', message);
    expect((await getCompliance()).body.data.compliance.source).toBe('default');
  });

  it('is for the owner key only', async () => {
    const member = await t.memberKey(acc.id, ['messages:read', 'messages:create']);
    expectError(await getCompliance(member), 403, 'FORBIDDEN');
    expectError(await patch({ allowedLinkDomains: ['example.com'] }, member), 403, 'FORBIDDEN');
  });
});
