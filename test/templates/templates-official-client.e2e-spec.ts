import { ApiError } from '../../src/common/errors';
import type { Env } from '../../src/config/app-config';
import { ProviderError } from '../../src/providers/provider.types';
import { CloudApiTemplateClient } from '../../src/templates/official/cloud-api-template.client';
import { OfficialTemplateSubmission } from '../../src/templates/official/official-template-client';
import { adapterConfig } from '../providers-fakes/adapter-config';
import { closedPort, FakeReply, HttpFake } from '../providers-fakes/http-fake';

const TOKEN = 'cloud-token-tpl';

/** The template client serves PROVIDER_CHATAPP=cloud_api, whose settings it reads. */
const cloudConfig = (baseUrl: string, env: Env = {}) =>
  adapterConfig({
    PROVIDER_CHATAPP: 'cloud_api',
    CHATAPP_CLOUD_BASE_URL: baseUrl,
    CHATAPP_CLOUD_TOKEN: TOKEN,
    CHATAPP_CLOUD_PHONE_NUMBER_ID: 'pn_1',
    CHATAPP_CLOUD_WABA_ID: 'waba_platform',
    CHATAPP_CLOUD_APP_ID: 'app_1',
    ...env,
  });

const submission: OfficialTemplateSubmission = {
  name: 'order_update',
  language: 'en',
  subType: 'utility',
  body: 'Hi {{1}}',
  bodyParameters: [{ index: 1, label: 'Sara' }],
  header: null,
  footer: null,
  buttons: [],
  otp: null,
  wabaId: 'waba_1',
};

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
}

// The template client on the shared provider HTTP helper (timeouts, transport errors, status classes),
// against a local fake of the Cloud API template endpoints.
describe('CloudApiTemplateClient against a local Cloud-API fake', () => {
  let fake: HttpFake;
  let sut: CloudApiTemplateClient;
  const answer = (reply: FakeReply) => {
    fake.reply = () => reply;
  };

  beforeAll(async () => {
    fake = await new HttpFake().start();
  });
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    sut = new CloudApiTemplateClient(cloudConfig(fake.baseUrl, { PROVIDER_TIMEOUT_MS: '400' }));
  });

  it('submits with the bearer token and reads the receipt; polls status with a GET', async () => {
    answer({ status: 200, body: { id: '9001', status: 'PENDING', category: 'UTILITY' } });
    await expect(sut.submit(submission)).resolves.toEqual({ providerTemplateId: '9001', status: 'pending' });
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v21.0/waba_1/message_templates',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    expect(fake.requests[0].body).toMatchObject({ name: 'order_update', language: 'en' });

    answer({ status: 200, body: { id: '9001', status: 'REJECTED', rejected_reason: 'PROMOTIONAL' } });
    await expect(sut.fetchStatus('9001')).resolves.toEqual({ status: 'rejected', reason: 'PROMOTIONAL' });
    expect(fake.requests[1]).toMatchObject({
      method: 'GET',
      path: '/v21.0/9001?fields=status,rejected_reason',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: null,
    });
    answer({ status: 404, body: { error: { message: 'Unknown path' } } });
    await expect(sut.fetchStatus('9002')).resolves.toBeNull();
  });

  it('429 (with Retry-After) and Graph rate-limit codes -> rate_limited', async () => {
    answer({
      status: 429,
      headers: { 'Retry-After': '7' },
      body: { error: { message: 'Too many calls', code: 80008 } },
    });
    expect(await failure(sut.submit(submission))).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7000 });
    answer({ status: 400, body: { error: { message: 'Application request limit reached', code: 4 } } });
    expect(await failure(sut.submit(submission))).toMatchObject({ kind: 'rate_limited' });
    answer({ status: 429, body: {} });
    expect(await failure(sut.fetchStatus('9001'))).toMatchObject({ kind: 'rate_limited' });
  });

  it('5xx, 408, a timeout and a refused connection -> unavailable', async () => {
    for (const reply of [
      { status: 500, body: { error: { message: 'internal', code: 2 } } },
      { status: 503 },
      { status: 408, body: {} },
      { status: 200, hang: true },
    ]) {
      answer(reply);
      const err = await failure(sut.submit(submission));
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ kind: 'unavailable' });
    }
    answer({ status: 502 });
    expect(await failure(sut.fetchStatus('9001'))).toMatchObject({ kind: 'unavailable' });
    const down = new CloudApiTemplateClient(cloudConfig(`http://127.0.0.1:${await closedPort()}`));
    expect(await failure(down.submit(submission))).toMatchObject({ kind: 'unavailable' });
  });

  it("a sender without its own business account submits to the platform's (CHATAPP_CLOUD_WABA_ID)", async () => {
    answer({ status: 200, body: { id: '9002', status: 'PENDING' } });
    await expect(sut.submit({ ...submission, wabaId: null })).resolves.toEqual({
      providerTemplateId: '9002',
      status: 'pending',
    });
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v21.0/waba_platform/message_templates' });
  });

  it('401/403 and an answer without a template id -> failed; other 4xx -> 400 with the provider message; duplicate -> 409', async () => {
    for (const status of [401, 403]) {
      answer({ status, body: { error: { message: 'Invalid OAuth access token', code: 190 } } });
      expect(await failure(sut.submit(submission))).toMatchObject({
        kind: 'failed',
        message: `provider answered HTTP ${status}: Invalid OAuth access token`,
      });
    }
    answer({ status: 200, body: { status: 'PENDING' } });
    expect(await failure(sut.submit(submission))).toMatchObject({ kind: 'failed' });
    answer({
      status: 400,
      body: {
        error: {
          message: 'Invalid parameter',
          code: 100,
          error_subcode: 2388040,
          error_user_msg: 'Body has too many variables',
        },
      },
    });
    const refused = await failure(sut.submit(submission));
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The provider refused the template: Body has too many variables',
    });
    answer({ status: 400, body: { error: { message: 'Invalid parameter', code: 100, error_subcode: 2388024 } } });
    expect(await failure(sut.submit(submission))).toMatchObject({ code: 'TEMPLATE_EXISTS' });
  });
});
