import { SuppressionsService } from '../../src/consent/suppressions.service';
import { CloudFake, cloudEnv } from '../providers-fakes/cloud-fake';
import { hubSignature } from '../providers-fakes/cloud-webhook';
import { createTestApp, TestApp } from '../support/app';
import { accountIdOf } from '../../src/common/account-id';

const APP_SECRET = 'cloud-app-secret-123';

/** What the Cloud API POSTs when a contact writes to `phoneNumberId` (`value.messages[]`). */
function cloudInbound(phoneNumberId: string, from: string, id: string, text: string): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'waba_shop',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '966500000002', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: 'A' }, wa_id: from }],
              messages: [
                { from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } },
              ],
            },
          },
        ],
      },
    ],
  };
}

// Issue 28 item 4 on the Cloud API webhook: texts to an account's own number.
describe('Inbound keywords on the Cloud API webhook (e2e)', () => {
  let t: TestApp;
  const cloud = new CloudFake();

  beforeAll(async () => {
    await cloud.start();
    t = await createTestApp({
      env: { ...cloudEnv(cloud.url), PROVIDER_TIMEOUT_MS: '2000', CHATAPP_CLOUD_APP_SECRET: APP_SECRET },
    });
  });
  afterAll(async () => {
    await t?.close();
    await cloud.stop();
  });

  const post = (body: unknown) => {
    const raw = JSON.stringify(body);
    return t
      .http()
      .post('/hooks/chatapp/messages')
      .set('Content-Type', 'application/json')
      .set('X-Hub-Signature-256', hubSignature(APP_SECRET, raw))
      .send(raw);
  };

  it('STOP to an account’s own number suppresses the contact for chatapp; START lifts it; the platform number is no one’s', async () => {
    const acc = await t.createAccount();
    await t
      .admin('post', `/admin/v1/accounts/${acc.id}/official-senders`)
      .send({ displayName: 'Shop', wabaId: 'waba_shop', phoneNumberId: 'PN_KW_1' })
      .expect(201);
    const entries = () =>
      t.app.get(SuppressionsService).list(accountIdOf(acc.id), { recipient: '+966500000411', limit: 10 });

    expect((await post(cloudInbound('PN_KW_1', '966500000411', 'wamid.kw1', 'ﺗﻮﻗﻒ'))).status).toBe(200);
    expect(await entries()).toEqual([
      expect.objectContaining({ channel: 'chatapp', scope: 'all', reason: 'keyword', source: 'wamid.kw1' }),
    ]);
    expect((await post(cloudInbound('PN_KW_1', '966500000411', 'wamid.kw2', 'start'))).status).toBe(200);
    expect(await entries()).toEqual([]);
    expect((await post(cloudInbound('1055', '966500000411', 'wamid.kw3', 'STOP'))).status).toBe(200);
    expect(await entries()).toEqual([]);
  });
});
