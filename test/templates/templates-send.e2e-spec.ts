import { createTestApp, TestAccount, TestApp } from '../support/app';
import { chatappBody, mediaDir, smsBody } from '../support/templates-helpers';

// The contract with messaging: templates created here are sent by the real send route.
describe('Templates used by the send route (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({ env: { MEDIA_DIR: mediaDir() } });
    acc = await t.createAccount();
  });
  afterAll(async () => {
    await t.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).send(body);
    expect(res.status).toBe(201);
    return res.body.data.template.id as string;
  };
  const send = (body: Record<string, unknown>) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
  /** What the sandbox delivered to `to` (admin API), oldest first. */
  const delivered = async (to: string) =>
    (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}&to=${encodeURIComponent(to)}`)).body.data
      .messages as { channel: string; text: string }[];

  it('an active SMS template fills {{n}} from variablesIndexed; the wrong count is refused', async () => {
    const id = await create(smsBody());
    const ok = await send({
      to: '+966500000123',
      channel: 'local_sms',
      messageType: 'template',
      template: { id, variablesIndexed: ['4321'] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.messages).toEqual([
      expect.objectContaining({ to: '+966500000123', channel: 'local_sms', status: 'sent' }),
    ]);
    expect(await delivered('+966500000123')).toEqual([
      expect.objectContaining({ channel: 'local_sms', text: 'Your code is 4321' }),
    ]);
    const bad = await send({
      to: '+966500000123',
      channel: 'local_sms',
      messageType: 'template',
      template: { id, variablesIndexed: [] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('TEMPLATE_VARIABLES_MISMATCH');
  });

  it('a pending official template is not usable until approved', async () => {
    const id = await create(
      chatappBody({ buttons: [{ type: 'url', text: 'Track', url: 'https://shop.example/t/{{1}}' }] }),
    );
    const msg = {
      to: '+966500000124',
      channel: 'chatapp',
      messageType: 'template',
      template: { id, variablesIndexed: ['Sara', 'A-1'], buttonVariables: ['A1'] },
    };
    const pending = await send(msg);
    expect(pending.status).toBe(400);
    expect(pending.body.code).toBe('TEMPLATE_NOT_USABLE');
    expect((await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' })).status).toBe(200);
    const ok = await send(msg);
    expect(ok.status).toBe(201);
    expect(ok.body.data.messages).toEqual([
      expect.objectContaining({ to: '+966500000124', channel: 'chatapp', status: 'sent' }),
    ]);
    expect(await delivered('+966500000124')).toEqual([
      expect.objectContaining({ channel: 'chatapp', text: 'Hi Sara, your order A-1 has shipped' }),
    ]);
  });

  it("another account's template is TEMPLATE_NOT_FOUND at send time", async () => {
    const other = await t.createAccount();
    const id = await create(smsBody({ name: 'mine_only' }));
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', other.key)
      .send({
        to: '+966500000125',
        channel: 'local_sms',
        messageType: 'template',
        template: { id, variablesIndexed: ['1'] },
      });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('TEMPLATE_NOT_FOUND');
  });
});
