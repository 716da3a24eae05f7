import { createTestApp, TestApp } from './support/app';

describe('Chatapp web in the OpenAPI document (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('documents the chat route with its query parameters and leaves the provider hook out', async () => {
    const res = await t.http().get('/docs-json');
    expect(res.status).toBe(200);
    const op = res.body.paths['/api/v2/chatapp-web/chats']?.get;
    expect(op).toBeDefined();
    const params = (op.parameters as { name: string; in: string; required?: boolean }[]).filter((p) => p.in === 'query');
    expect(params.map((p) => p.name).sort()).toEqual(['accountId', 'cursor', 'limit', 'type']);
    expect(params.find((p) => p.name === 'accountId')?.required).toBe(true);
    expect(res.body.paths['/admin/v1/accounts/{id}/web-sessions']?.post).toBeDefined();
    expect(res.body.paths['/admin/v1/accounts/{id}/web-sessions/{name}/inbound']?.post).toBeDefined();
    expect(Object.keys(res.body.paths).some((p) => p.startsWith('/hooks/waha'))).toBe(false);
  });
});
