import { createTestApp, TestApp } from './support/app';

describe('SMS senders (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('boots with the senders and webhooks tables', async () => {
    const acc = await t.createAccount();
    expect(acc.id).toBeTruthy();
  });
});
