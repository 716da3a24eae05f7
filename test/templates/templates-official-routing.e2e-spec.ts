import { DataSource } from 'typeorm';
import { CloudFake, cloudEnv } from '../providers-fakes/cloud-fake';
import { createTestApp, makeDue, TestAccount, TestApp, waitFor } from '../support/app';
import { chatappBody } from '../support/templates-helpers';

// Official template sends go out from the template's own official sender (issue 10, item 11):
// the Cloud API resolves a template by name + language in the sending number's business account.
describe("Templates: official sends are posted from the template's official sender (e2e)", () => {
  let t: TestApp;
  let acc: TestAccount;
  const fake = new CloudFake();

  beforeAll(async () => {
    await fake.start();
    t = await createTestApp({ env: cloudEnv(fake.url) });
    acc = await t.createAccount();
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.requests = [];
  });

  const sender = async (fields: Record<string, unknown>) =>
    (await t.admin('post', `/admin/v1/accounts/${acc.id}/official-senders`).send(fields).expect(201)).body.data
      .officialSender.id as string;
  const link = async (officialSenderId: string, providerTemplateId: string, name: string) => {
    const res = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).send({
      name,
      category: 'chatapp',
      subType: 'utility',
      creationMode: 'manual_external_id',
      officialSenderId,
      providerTemplateId,
      manualVariableCount: 1,
    });
    expect(res.status).toBe(201);
    return res.body.data.template.id as string;
  };
  const send = (id: string, to: string, variablesIndexed: string[], extra: Record<string, unknown> = {}) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'chatapp', messageType: 'template', template: { id, variablesIndexed }, ...extra });
  const messagePosts = () => fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'));

  it('a template on an account sender goes to /{v}/PN_ACCOUNT/messages, by its provider name + language', async () => {
    const own = await sender({ displayName: 'Routing', phoneNumberId: 'PN_ACCOUNT', wabaId: 'waba_routing' });
    fake.known['901'] = {
      waba: 'waba_routing',
      name: 'routed_manual',
      language: 'ar',
      status: 'APPROVED',
      body: 'Hi {{1}}',
    };
    const id = await link(own, '901', 'routed_manual');
    fake.requests = [];

    const res = await send(id, '+966501230001', ['Sara']);
    expect(res.status).toBe(201);
    expect(res.body.data.messages[0]).toMatchObject({ status: 'sent' });
    expect(messagePosts().map((r) => r.path)).toEqual(['/v21.0/PN_ACCOUNT/messages']);
    expect(messagePosts()[0].body).toMatchObject({
      to: '966501230001',
      type: 'template',
      template: { name: 'routed_manual', language: { code: 'ar' } },
    });
  });

  it('a platform template goes to the configured platform phone-number id', async () => {
    const created = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'routed_platform', officialSenderId: 'platform' }));
    expect(created.status).toBe(201);
    const { id } = created.body.data.template;
    await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' }).expect(200);
    fake.requests = [];

    const res = await send(id, '+966501230002', ['Sara', 'A-1']);
    expect(res.status).toBe(201);
    expect(res.body.data.messages[0]).toMatchObject({ status: 'sent' });
    expect(messagePosts().map((r) => r.path)).toEqual(['/v21.0/pn_main/messages']);
  });

  it('an account sender without a phone-number id (own business account) never sends from another number: failed, refunded', async () => {
    const bare = await sender({ displayName: 'No number', wabaId: 'waba_bare' });
    fake.known['902'] = {
      waba: 'waba_bare',
      name: 'routed_bare',
      language: 'en',
      status: 'APPROVED',
      body: 'Hi {{1}}',
    };
    const id = await link(bare, '902', 'routed_bare');
    const balance = async () =>
      (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;
    const before = await balance();
    fake.requests = [];

    const res = await send(id, '+966501230003', ['Sara']);
    expect(res.status).toBe(201);
    const m = res.body.data.messages[0];
    expect(m).toMatchObject({ status: 'failed' });
    const stored = (await t.http().get(`/api/v2/messages/${m.id}`).set('X-API-Key', acc.key)).body.data;
    expect(stored).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_REJECTED' });
    expect(messagePosts()).toEqual([]);
    expect(await balance()).toBe(before);
  });

  it('an account sender without a phone-number id whose templates are filed under the platform business account sends from the platform number', async () => {
    const shared = await sender({ displayName: 'Shared account' });
    const created = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'routed_shared', officialSenderId: shared }));
    expect(created.status).toBe(201);
    expect(fake.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual([
      '/v21.0/waba_main/message_templates',
    ]);
    await t
      .admin('post', `/admin/v1/templates/${created.body.data.template.id}/status`)
      .send({ status: 'approved' })
      .expect(200);
    fake.requests = [];

    const res = await send(created.body.data.template.id, '+966501230005', ['Sara', 'A-2']);
    expect(res.body.data.messages[0]).toMatchObject({ status: 'sent' });
    expect(messagePosts().map((r) => r.path)).toEqual(['/v21.0/pn_main/messages']);
  });

  it('a phone-number id that cannot be a request path segment is refused when the sender is created', async () => {
    const res = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/official-senders`)
      .send({ displayName: 'Bad', phoneNumberId: '../pn_main' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', requestId: expect.any(String) });
    expect(res.body.error).toContain('phoneNumberId');
  });

  it('a scheduled send resolves the sender when it is sent: its stored payload holds no route (as payloads stored before routing)', async () => {
    const own = await sender({ displayName: 'Later', phoneNumberId: 'PN_LATER', wabaId: 'waba_later' });
    fake.known['903'] = {
      waba: 'waba_later',
      name: 'routed_later',
      language: 'en',
      status: 'APPROVED',
      body: 'Hi {{1}}',
    };
    const id = await link(own, '903', 'routed_later');
    fake.requests = [];

    const res = await send(id, '+966501230004', ['Sara'], { scheduleAt: new Date(Date.now() + 60_000).toISOString() });
    expect(res.status).toBe(201);
    const m = res.body.data.messages[0];
    expect(m.status).toBe('scheduled');
    await makeDue(t.app.get(DataSource), [m.id]);
    const [row] = await t.app.get(DataSource).query('SELECT payload FROM messages WHERE id = ?', [m.id]);
    const stored = JSON.parse(row.payload);
    expect(stored.template).toMatchObject({ id, name: 'routed_later' });
    expect(stored.template).not.toHaveProperty('route');

    await waitFor(
      async () =>
        (await t.http().get(`/api/v2/messages/${m.id}`).set('X-API-Key', acc.key)).body.data.status === 'sent',
      { what: 'scheduled template sent' },
    );
    expect(messagePosts().map((r) => r.path)).toEqual(['/v21.0/PN_LATER/messages']);
  });
});
