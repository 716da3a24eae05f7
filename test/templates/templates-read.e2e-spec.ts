import { createTestApp, TestApp } from '../support/app';
import { TemplatesService } from '../../src/templates/templates.service';
import { accountIdOf } from '../../src/common/account-id';

describe('Templates read (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('404 NOT_FOUND "Template not found" for an unknown id', async () => {
    const acc = await t.createAccount();
    const res = await t.http().get('/api/v2/templates/tpl_nope').set('X-API-Key', acc.key);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND', error: 'Template not found' });
  });

  it('the OpenAPI document lists the template routes', async () => {
    const res = await t.http().get('/docs-json');
    expect(res.status).toBe(200);
    for (const path of [
      '/api/v2/templates',
      '/api/v2/templates/{id}',
      '/api/v2/templates/media',
      '/api/v2/chatapp/official-senders',
    ]) {
      expect(Object.keys(res.body.paths)).toContain(path);
    }
  });

  it('findForSend returns null for an unknown id', async () => {
    const acc = await t.createAccount();
    await expect(t.app.get(TemplatesService).findForSend(accountIdOf(acc.id), 'tpl_nope')).resolves.toBeNull();
  });
});
