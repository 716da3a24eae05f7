import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/app';
import { expectEnvelope } from '../support/envelope';

describe('Admin API disabled (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_TOKEN: '' } });
  });
  afterAll(async () => t.close());

  it('answers 401 for everything when ADMIN_TOKEN is unset', async () => {
    const res = await t
      .http()
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: 'x' });
    expectEnvelope(res, 401, 'UNAUTHORIZED');
  });
});
