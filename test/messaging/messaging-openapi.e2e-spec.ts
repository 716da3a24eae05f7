import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createTestApp, TestAccount, TestApp } from '../support/app';

// The send body's documented schema must say what the validator really requires: every body the
// API accepts is valid against it, and every body refused for a missing or unknown field is not.
// (Responses are checked against the document by the supertest hook in every suite.)

interface Doc {
  paths: Record<
    string,
    Record<string, { operationId?: string; parameters?: { name: string; schema: Record<string, unknown> }[] }>
  >;
  components: {
    schemas: Record<string, { required?: string[]; properties?: Record<string, Record<string, unknown>> }>;
  };
}

describe('Messages, account and verification in the OpenAPI document (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let doc: Doc;
  let sendBody: ValidateFunction;
  const chatId = '966511111111@c.us';
  const chat = { chatId, conversationContext: { moduleType: 'chatapp_web', accountId: 'shop', chatId } };

  beforeAll(async () => {
    t = await createTestApp();
    acc = await t.createAccount();
    const session = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'shop', status: 'ready', chats: [{ chatId, kind: 'direct', title: 'Sara' }] });
    expect(session.status).toBe(201);
    doc = (await t.http().get('/docs-json').expect(200)).body as Doc;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'public', components: doc.components });
    sendBody = ajv.compile({ $ref: 'public#/components/schemas/SendMessageRequest' });
  });
  afterAll(() => t.close());

  const send = (body: Record<string, unknown>) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
  const text = { text: 'Hello' };

  it.each<[string, Record<string, unknown>]>([
    ['an SMS', { to: '+966501234567', channel: 'local_sms', messageType: 'free_text', content: text }],
    [
      'a batch of two',
      { to: ['+966501234567', '+966501234568'], channel: 'local_sms', messageType: 'free_text', content: text },
    ],
    [
      'an email',
      {
        to: 'Sara@Example.com',
        channel: 'email',
        messageType: 'free_text',
        content: { subject: 'Hi', html: '<p>Hi</p>' },
      },
    ],
    ['a chat message without `to`', { channel: 'chatapp_web', messageType: 'free_text', content: text, ...chat }],
    [
      'a chat message repeating chatId in `to`',
      { to: chatId, channel: 'chatapp_web', messageType: 'free_text', content: text, ...chat },
    ],
    [
      'a scheduled SMS',
      {
        to: '+966501234567',
        channel: 'local_sms',
        messageType: 'free_text',
        content: text,
        scheduleAt: '2099-01-01T09:00:00Z'.replace('2099', String(new Date().getUTCFullYear() + 1)),
      },
    ],
  ])('accepts %s, and the documented schema accepts it too', async (_name, body) => {
    const res = await send(body);
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(sendBody(body)).toBe(true);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'free_text without content',
      { to: '+966501234567', channel: 'local_sms', messageType: 'free_text' },
      'INVALID_CONTENT',
    ],
    [
      'template without template',
      { to: '+966501234567', channel: 'local_sms', messageType: 'template' },
      'TEMPLATE_NOT_FOUND',
    ],
    ['an SMS without to', { channel: 'local_sms', messageType: 'free_text', content: text }, 'INVALID_RECIPIENT'],
    [
      'a chat message without conversationContext',
      { channel: 'chatapp_web', messageType: 'free_text', content: text, chatId },
      'VALIDATION_ERROR',
    ],
    [
      'a chat message without chatId',
      {
        channel: 'messaging_bot',
        messageType: 'free_text',
        content: text,
        conversationContext: chat.conversationContext,
      },
      'INVALID_RECIPIENT',
    ],
    ['no channel', { to: '+966501234567', messageType: 'free_text', content: text }, 'INVALID_CHANNEL'],
    [
      'an unknown field',
      { to: '+966501234567', channel: 'local_sms', messageType: 'free_text', content: text, priority: 'high' },
      'VALIDATION_ERROR',
    ],
    [
      'an unknown template field',
      { to: '+966501234567', channel: 'local_sms', messageType: 'template', template: { id: 'tpl_x', lang: 'en' } },
      'VALIDATION_ERROR',
    ],
    [
      '101 recipients',
      {
        to: Array.from({ length: 101 }, (_, i) => `+9665012345${String(i).padStart(2, '0')}`),
        channel: 'local_sms',
        messageType: 'free_text',
        content: text,
      },
      'VALIDATION_ERROR',
    ],
  ])('refuses %s, and the documented schema refuses it too', async (_name, body, code) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code });
    expect(sendBody(body)).toBe(false);
  });

  it('requires only channel and messageType at the top level; content, template, attachment and conversationContext are object schemas', () => {
    const schema = doc.components.schemas.SendMessageRequest;
    expect(schema.required).toEqual(['channel', 'messageType']);
    for (const name of ['MessageContent', 'MessageTemplateInput', 'MessageAttachment', 'MessageConversationContext']) {
      expect(doc.components.schemas[name].properties).toBeDefined();
    }
    expect(doc.components.schemas.MessageTemplateInput.required).toEqual(['id']);
    expect(doc.components.schemas.MessageConversationContext.required).toEqual(['moduleType', 'accountId', 'chatId']);
  });

  it('names the operations and types the list query and the verification options', () => {
    const ids = (path: string, method: string) => doc.paths[path][method].operationId;
    expect(ids('/api/v2/messages/send', 'post')).toBe('sendMessage');
    expect(ids('/api/v2/messages', 'get')).toBe('listMessages');
    expect(ids('/api/v2/messages/{id}', 'get')).toBe('getMessage');
    expect(ids('/api/v2/account', 'get')).toBe('getAccount');
    expect(ids('/api/v2/verification/send', 'post')).toBe('sendVerificationCode');
    expect(ids('/api/v2/verification/check', 'post')).toBe('checkVerificationCode');
    const limit = doc.paths['/api/v2/messages'].get.parameters?.find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    const verification = doc.components.schemas.SendVerificationDto;
    expect(verification.required).toEqual(['to', 'channel']);
    // A body property states its default in words: a `default` would make a generated client require it.
    expect(verification.properties?.codeLength).toEqual({
      type: 'integer',
      minimum: 4,
      maximum: 8,
      description: 'Digits in the code. Default: 6.',
    });
    expect(verification.properties?.expiresInMinutes).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 90,
      description: 'Minutes the code stays valid. Default: 10.',
    });
  });
});
