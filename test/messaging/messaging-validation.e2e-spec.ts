import { createTestApp, TestAccount, TestApp } from '../support/app';

const PHONE = '+966501234567';

/** Every validator failure code through POST /api/v2/messages/send; nothing is sent or paid. */
describe('MessageValidator via POST /api/v2/messages/send (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acc = await t.createAccount({ walletBalance: 1000 });
  });
  afterAll(async () => {
    await t.close();
  });

  const send = (body: unknown) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send(body as object);
  const sms = (extra: Record<string, unknown> = {}) => ({
    to: PHONE,
    channel: 'local_sms',
    messageType: 'free_text',
    content: { text: 'Hi' },
    ...extra,
  });
  const email = (extra: Record<string, unknown> = {}) => ({
    to: 'a@b.co',
    channel: 'email',
    messageType: 'free_text',
    content: { subject: 'S', text: 'T' },
    ...extra,
  });
  const expectCode = async (body: unknown, code: string, field: RegExp, status = 400) => {
    const res = await send(body);
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    expect(res.body.error).toMatch(field);
    expect(res.body.success).toBe(false);
  };
  const templateOf = async (body: Record<string, unknown>) => {
    const res = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).send(body);
    if (res.status !== 201) throw new Error(`template: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.template.id as string;
  };

  it('INVALID_RECIPIENT: bad phone, bad email, missing or non-string to', async () => {
    await expectCode(sms({ to: '12' }), 'INVALID_RECIPIENT', /^to /);
    await expectCode(sms({ to: '+999123' }), 'INVALID_RECIPIENT', /^to /);
    await expectCode(sms({ to: undefined }), 'INVALID_RECIPIENT', /^to /);
    await expectCode(sms({ to: 42 }), 'INVALID_RECIPIENT', /^to /);
    await expectCode(email({ to: 'not-an-email' }), 'INVALID_RECIPIENT', /^to /);
    await expectCode(email({ to: 'a@b' }), 'INVALID_RECIPIENT', /^to /);
  });

  it('national numbers use DEFAULT_REGION (SA) and come back in E.164', async () => {
    const res = await send(sms({ to: '050 123 4567' }));
    expect(res.status).toBe(201);
    expect(res.body.data.messages[0].to).toBe(PHONE);
  });

  it('INVALID_CHANNEL and INVALID_MESSAGE_TYPE', async () => {
    await expectCode(sms({ channel: 'fax' }), 'INVALID_CHANNEL', /^channel/);
    await expectCode(sms({ channel: undefined }), 'INVALID_CHANNEL', /^channel/);
    await expectCode(sms({ messageType: 'voice' }), 'INVALID_MESSAGE_TYPE', /^messageType/);
    await expectCode(sms({ template: { id: 'x' } }), 'INVALID_MESSAGE_TYPE', /template/);
  });

  it('INVALID_CONTENT: missing text, email without subject or body, wrong types, too long SMS', async () => {
    await expectCode(sms({ content: undefined }), 'INVALID_CONTENT', /content\.text/);
    await expectCode(sms({ content: 'Hi' }), 'INVALID_CONTENT', /^content/);
    await expectCode(sms({ content: { text: '   ' } }), 'INVALID_CONTENT', /content\.text/);
    await expectCode(sms({ content: { text: 5 } }), 'INVALID_CONTENT', /content\.text/);
    await expectCode(sms({ content: { text: 'x'.repeat(1601) } }), 'INVALID_CONTENT', /content\.text/);
    await expectCode(email({ content: { text: 'T' } }), 'INVALID_CONTENT', /content\.subject/);
    await expectCode(email({ content: { subject: 'S' } }), 'INVALID_CONTENT', /content\.text or content\.html/);
  });

  it('VALIDATION_ERROR: unknown fields, missing or inconsistent conversationContext, non-object body', async () => {
    await expectCode(sms({ priority: 'high' }), 'VALIDATION_ERROR', /priority/);
    const chat = { channel: 'chatapp_web', messageType: 'free_text', content: { text: 'x' }, chatId: 'c1' };
    await expectCode(chat, 'VALIDATION_ERROR', /conversationContext/);
    await expectCode(
      { ...chat, conversationContext: { moduleType: 'messaging_bot', accountId: 's', chatId: 'c1' } },
      'VALIDATION_ERROR',
      /conversationContext\.moduleType/,
    );
    await expectCode(
      { ...chat, conversationContext: { moduleType: 'chatapp_web', accountId: 's', chatId: 'c2' } },
      'VALIDATION_ERROR',
      /conversationContext\.chatId/,
    );
    await expectCode({ ...chat, chatId: undefined }, 'INVALID_RECIPIENT', /chatId/);
    const arr = await t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send([sms()]);
    expect(arr.status).toBe(400);
    expect(arr.body.code).toBe('INVALID_REQUEST_BODY');
    await expectCode(sms({ to: [] }), 'VALIDATION_ERROR', /^to/);
  });

  it('INVALID_ATTACHMENT: not on SMS, bad URL', async () => {
    await expectCode(sms({ attachment: { url: 'https://x.co/a.pdf' } }), 'INVALID_ATTACHMENT', /attachment/);
    await expectCode(email({ attachment: { url: 'ftp://x.co/a.pdf' } }), 'INVALID_ATTACHMENT', /attachment\.url/);
    await expectCode(email({ attachment: 'x' }), 'INVALID_ATTACHMENT', /attachment/);
    const ok = await send(
      email({ attachment: { url: 'https://x.co/a.pdf', mimeType: 'application/pdf', fileName: 'a.pdf' } }),
    );
    expect(ok.status).toBe(201);
  });

  it('INVALID_SCHEDULE', async () => {
    await expectCode(sms({ scheduleAt: '2001-01-01T00:00:00Z' }), 'INVALID_SCHEDULE', /scheduleAt/);
  });

  it('SENDER_NOT_APPROVED until the sender is approved; an approved sender is used, and becomes the default', async () => {
    await expectCode(sms({ sender: 'Acme' }), 'SENDER_NOT_APPROVED', /sender/);
    const created = await t.http().post('/api/v2/sms-senders').set('X-API-Key', acc.key).send({ name: 'Acme' });
    expect(created.status).toBe(201);
    await expectCode(sms({ sender: 'Acme' }), 'SENDER_NOT_APPROVED', /sender/);
    await t
      .admin('post', `/admin/v1/sms-senders/${created.body.data.smsSender.id}/approve`)
      .send({})
      .expect((r) => expect(r.status).toBeLessThan(300));
    const ok = await send(sms({ sender: 'Acme' }));
    expect(ok.status).toBe(201);
    const implicit = await send(sms());
    expect(implicit.status).toBe(201);
    const log = (await t.http().get('/api/v2/messages?limit=2').set('X-API-Key', acc.key)).body.data.messages;
    expect(log.map((m: { sender: string }) => m.sender)).toEqual(['Acme', 'Acme']);
    await expectCode(sms({ sender: '' }), 'SENDER_NOT_APPROVED', /sender/);
  });

  it('templates: filled from variablesIndexed; TEMPLATE_NOT_FOUND / NOT_USABLE / VARIABLES_MISMATCH', async () => {
    const id = await templateOf({
      name: 'order_ready',
      category: 'sms',
      subType: 'utility',
      content: 'Order {{1}} is ready at {{2}}',
    });
    const tpl = (extra: Record<string, unknown>) => sms({ messageType: 'template', content: undefined, ...extra });
    const ok = await send(tpl({ template: { id, variablesIndexed: ['A17', 'Gate 3'] } }));
    expect(ok.status).toBe(201);
    const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`)).body.data.messages;
    expect(d[d.length - 1].text).toBe('Order A17 is ready at Gate 3');
    await expectCode(
      tpl({ template: { id, variablesIndexed: ['A17'] } }),
      'TEMPLATE_VARIABLES_MISMATCH',
      /template\.variablesIndexed/,
    );
    await expectCode(
      tpl({ template: { id, variablesIndexed: ['A17', { x: 1 }] } }),
      'TEMPLATE_VARIABLES_MISMATCH',
      /template\.variablesIndexed\[1\]/,
    );
    await expectCode(
      tpl({ template: { id, variablesIndexed: ['a', 'b'], buttonVariables: ['x'] } }),
      'TEMPLATE_VARIABLES_MISMATCH',
      /template\.buttonVariables/,
    );
    await expectCode(tpl({ template: { id: 'tpl_nope' } }), 'TEMPLATE_NOT_FOUND', /template\.id/);
    await expectCode(tpl({ template: undefined }), 'TEMPLATE_NOT_FOUND', /template\.id/);
    await expectCode(
      tpl({ channel: 'email', to: 'a@b.co', template: { id, variablesIndexed: ['a', 'b'] } }),
      'TEMPLATE_NOT_USABLE',
      /template\.id/,
    );
    await expectCode(
      tpl({ template: { id, variablesIndexed: ['a', 'b'], headerMediaUrl: 'https://x.co/i.png' } }),
      'TEMPLATE_NOT_USABLE',
      /headerMediaUrl/,
    );
    // Another account's template does not exist for this one.
    const other = await t.createAccount();
    const foreign = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', other.key)
      .send(tpl({ template: { id, variablesIndexed: ['a', 'b'] } }));
    expect(foreign.body.code).toBe('TEMPLATE_NOT_FOUND');
    await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'pending' }).expect(200);
    await expectCode(tpl({ template: { id, variablesIndexed: ['a', 'b'] } }), 'TEMPLATE_NOT_USABLE', /template\.id/);
  });

  it('web-session template with a URL button: body from variablesIndexed, one buttonVariables value per URL button', async () => {
    const id = await templateOf({
      name: 'track_order',
      category: 'chatapp',
      subType: 'utility',
      provider: 'user_session',
      body: 'Track {{1}}',
      bodyParameters: [{ index: 1, label: 'A1' }],
      buttons: [{ type: 'url', text: 'Track', url: 'https://x.co/t/{{1}}' }],
    });
    await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'shop', status: 'ready', chats: [{ chatId: 'c9@c.us', kind: 'direct', title: 'C9' }] })
      .expect(201);
    const base = {
      channel: 'chatapp_web',
      messageType: 'template',
      chatId: 'c9@c.us',
      conversationContext: { moduleType: 'chatapp_web', accountId: 'shop', chatId: 'c9@c.us' },
    };
    await expectCode(
      { ...base, template: { id, variablesIndexed: ['A17'] } },
      'TEMPLATE_VARIABLES_MISMATCH',
      /template\.buttonVariables/,
    );
    const ok = await send({ ...base, template: { id, variablesIndexed: ['A17'], buttonVariables: ['A17'] } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.messages[0]).toMatchObject({ channel: 'chatapp_web', to: 'c9@c.us', status: 'sent', cost: 3 });
    const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}&channel=chatapp_web`)).body.data
      .messages;
    expect(d).toEqual([expect.objectContaining({ to: 'c9@c.us', text: 'Track A17' })]);
  });

  it('email templates render subject and body', async () => {
    const id = await templateOf({
      name: 'welcome_mail',
      category: 'email',
      subType: 'marketing',
      emailSubject: 'Welcome {{1}}',
      content: '<p>Hello {{1}}</p>',
    });
    const res = await send({
      to: 'new@user.io',
      channel: 'email',
      messageType: 'template',
      template: { id, variablesIndexed: ['Sam'] },
    });
    expect(res.status).toBe(201);
    const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}&channel=email&to=new@user.io`)).body
      .data.messages;
    expect(d).toEqual([expect.objectContaining({ subject: 'Welcome Sam', text: '<p>Hello Sam</p>' })]);
  });

  it('refused sends were neither recorded nor paid: the wallet equals 1000 minus the logged costs', async () => {
    const log = (await t.http().get('/api/v2/messages?limit=100').set('X-API-Key', acc.key)).body.data.messages as {
      cost: number;
      status: string;
    }[];
    expect(log.every((m) => m.status === 'sent')).toBe(true);
    const a = (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data;
    expect(a.walletBalance).toBe(1000 - log.reduce((s, m) => s + m.cost, 0));
    expect((await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`)).body.data.messages).toHaveLength(
      log.length,
    );
  });
});
