import { createTestApp, TestApp } from '../support/app';

describe('Chatapp web in the OpenAPI document (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('documents the chat route with typed query parameters and a typed page, and leaves the provider hook out', async () => {
    const res = await t.http().get('/docs-json');
    expect(res.status).toBe(200);
    const op = res.body.paths['/api/v2/chatapp-web/chats']?.get;
    expect(op?.operationId).toBe('listWebSessionChats');
    const params = (
      op.parameters as { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[]
    ).filter((p) => p.in === 'query');
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(['accountId', 'cursor', 'limit', 'type']);
    expect(byName.accountId).toMatchObject({
      required: true,
      schema: { type: 'string', minLength: 1, maxLength: 100 },
    });
    expect(byName.type.schema).toEqual({ type: 'string', enum: ['all', 'direct', 'group'], default: 'all' });
    expect(byName.limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 50, default: 20 });
    expect(byName.cursor.schema).toEqual({ type: 'string' });
    expect(op.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/WebSessionChatPage',
    });
    expect(op.responses['404'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['NOT_FOUND']);
    expect(op.responses['409'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual([
      'SESSION_NOT_READY',
    ]);
    expect(Object.keys(res.body.paths).some((p) => p.startsWith('/hooks/waha'))).toBe(false);
    // The operator routes of web sessions are in the operator document only.
    expect(Object.keys(res.body.paths).some((p) => p.startsWith('/admin/'))).toBe(false);
    const admin = await t.http().get('/docs/admin-json');
    expect(admin.body.paths['/admin/v1/accounts/{id}/web-sessions']?.post).toBeDefined();
    expect(admin.body.paths['/admin/v1/accounts/{id}/web-sessions/{name}/inbound']?.post).toBeDefined();
  });
});
