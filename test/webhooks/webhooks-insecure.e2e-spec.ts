import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { SecretBox } from '../../src/common/secret-box';
import { createTestApp, TestApp } from '../support/app';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { FAST, settle } from '../support/webhooks-helpers';
import { accountIdOf } from '../../src/common/account-id';

describe('Webhooks with WEBHOOK_ALLOW_INSECURE=false (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ env: { ...FAST, WEBHOOK_ALLOW_INSECURE: 'false' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it.each([
    'http://93.184.215.14/hook',
    'https://127.0.0.1/hook',
    'https://localhost/hook',
    'https://192.168.0.10/x',
    'https://[fd00::1]/x',
    'https://[::ffff:127.0.0.1]/x',
  ])('PUT refuses %s', async (url) => {
    const acc = await t.createAccount();
    const res = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(await t.app.get(WebhooksService).getChatappWebTarget(accountIdOf(acc.id))).toBeNull();
  });

  it('the http:// receiver URL itself is refused', async () => {
    const acc = await t.createAccount();
    const res = await t
      .http()
      .put('/api/v2/webhooks/chatapp-web')
      .set('X-API-Key', acc.key)
      .send({ url: receiver.url });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('https');
  });

  it('send time: a queued delivery to a private address fails without any request being made', async () => {
    const acc = await t.createAccount();
    const svc = t.app.get(WebhooksService);
    const sealedSecret = t.app.get(SecretBox).seal('k');
    const port = new URL(receiver.url).port;
    const ids = [];
    // A URL stored while insecure targets were allowed, or one whose DNS now points inside.
    for (const url of [`https://127.0.0.1:${port}/hook`, `https://localhost:${port}/hook`, receiver.url]) {
      ids.push(
        (
          await svc.enqueue(null, {
            accountId: accountIdOf(acc.id),
            url,
            event: 'x.private',
            body: {},
            sealedSecret,
            apiKeyHeader: false,
          })
        ).deliveryId,
      );
    }
    for (const id of ids) {
      const d = await settle(t, acc.key, id);
      expect(d.status).toBe('failed');
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0].error).toMatch(/^target refused/);
    }
    expect(receiver.calls).toHaveLength(0);
  });
});
