import { createTestApp, TestApp } from './support/app';
import { TemplatesService } from '../src/templates/templates.service';

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

  it('findForSend returns null for an unknown id', async () => {
    const acc = await t.createAccount();
    await expect(t.app.get(TemplatesService).findForSend(acc.id, 'tpl_nope')).resolves.toBeNull();
  });
});
