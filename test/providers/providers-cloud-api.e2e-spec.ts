import { Env } from '../../src/config/app-config';
import { CloudApiProvider } from '../../src/providers/cloud-api/cloud-api.provider';
import { OutboundMessage, ProviderError, ProviderTemplate } from '../../src/providers/provider.types';
import { ProvidersRegistry } from '../../src/providers/providers.registry';
import { closedPort, HttpFake } from '../providers-fakes/http-fake';
import { adapterConfig } from '../providers-fakes/adapter-config';
import { accountIdOf } from '../../src/common/account-id';

const TOKEN = 'cloud-token-123';

function adapter(env: Env): CloudApiProvider {
  const config = adapterConfig({
    PROVIDER_CHATAPP: 'cloud_api',
    CHATAPP_CLOUD_WABA_ID: 'waba_1',
    CHATAPP_CLOUD_APP_ID: 'app_1',
    PROVIDER_TIMEOUT_MS: '400',
    ...env,
  });
  const provider = new CloudApiProvider(new ProvidersRegistry(config), config);
  provider.onModuleInit();
  return provider;
}

function message(fields: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    messageId: 'msg_cloud_1',
    accountId: accountIdOf('acc_1'),
    channel: 'chatapp',
    to: '+966501234567',
    text: 'Hello there',
    ...fields,
  };
}

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('CloudApiProvider against a local Cloud-API fake', () => {
  let fake: HttpFake;
  let sut: CloudApiProvider;

  beforeAll(async () => {
    fake = await new HttpFake().start();
  });
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.reply = () => ({
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: '966501234567', wa_id: '966501234567' }],
        messages: [{ id: 'wamid.OK1' }],
      },
    });
    sut = adapter({
      CHATAPP_CLOUD_BASE_URL: fake.baseUrl,
      CHATAPP_CLOUD_TOKEN: TOKEN,
      CHATAPP_CLOUD_PHONE_NUMBER_ID: '1055',
    });
  });

  it('sends a text message in the Cloud API wire format with our id as biz_opaque_callback_data', async () => {
    await expect(sut.send(message())).resolves.toEqual({ status: 'sent', providerMessageId: 'wamid.OK1' });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v21.0/1055/messages');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '966501234567',
      type: 'text',
      text: { body: 'Hello there', preview_url: false },
      biz_opaque_callback_data: 'msg_cloud_1',
    });
  });

  it('sends a template with language, body parameters, URL button suffixes and a header media link', async () => {
    const template = {
      id: 'tpl_1',
      name: 'order_update',
      language: 'ar',
      providerTemplateId: '1234567890',
      variables: ['Sara', '#42'],
      buttonVariables: ['track/42', 'ret/42'],
      buttonIndexes: [1, 2],
      headerMediaUrl: 'https://cdn.example.com/banner.png',
      route: { via: 'platform' as const },
    };
    await expect(sut.send(message({ text: null, template }))).resolves.toEqual({
      status: 'sent',
      providerMessageId: 'wamid.OK1',
    });
    expect(fake.requests[0].body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '966501234567',
      type: 'template',
      biz_opaque_callback_data: 'msg_cloud_1',
      template: {
        name: 'order_update',
        language: { code: 'ar' },
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/banner.png' } }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Sara' },
              { type: 'text', text: '#42' },
            ],
          },
          // Template buttons [phone, url, url]: the Cloud API wants each URL button's position among all of them.
          { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'track/42' }] },
          { type: 'button', sub_type: 'url', index: '2', parameters: [{ type: 'text', text: 'ret/42' }] },
        ],
      },
    });
  });

  describe('template sender routing', () => {
    const template = (route: ProviderTemplate['route']): ProviderTemplate => ({
      id: 'tpl_r',
      name: 'order_update',
      language: 'en',
      providerTemplateId: '77',
      variables: [],
      buttonVariables: [],
      buttonIndexes: [],
      route,
    });

    it("posts an account sender's template to that sender's phone-number id, by name + language", async () => {
      await expect(
        sut.send(message({ text: null, template: template({ via: 'account', phoneNumberId: 'PN_ACCOUNT' }) })),
      ).resolves.toEqual({ status: 'sent', providerMessageId: 'wamid.OK1' });
      expect(fake.requests.map((r) => r.path)).toEqual(['/v21.0/PN_ACCOUNT/messages']);
      expect(fake.requests[0].body).toMatchObject({
        type: 'template',
        template: { name: 'order_update', language: { code: 'en' } },
      });
    });

    it('posts a platform template (and free text) from the configured platform phone-number id', async () => {
      await sut.send(message({ text: null, template: template({ via: 'platform' }) }));
      await sut.send(message());
      expect(fake.requests.map((r) => r.path)).toEqual(['/v21.0/1055/messages', '/v21.0/1055/messages']);
    });

    it('never sends a template whose sender has no usable phone-number id from another number', async () => {
      for (const route of [
        { via: 'account' as const, phoneNumberId: null },
        { via: 'account' as const, phoneNumberId: '../1055' },
        null,
      ]) {
        const outcome = await sut.send(message({ text: null, template: template(route) }));
        expect(outcome).toMatchObject({ status: 'rejected', code: 'PROVIDER_REJECTED' });
        expect(outcome.status === 'rejected' && outcome.message).toContain('phone-number id');
      }
      expect(fake.requests).toEqual([]);
    });
  });

  it('sends a free-text attachment as a media message with the text as caption', async () => {
    await sut.send(
      message({
        attachment: {
          url: 'https://cdn.example.com/invoice.pdf',
          mimeType: 'application/pdf',
          fileName: 'invoice.pdf',
        },
      }),
    );
    expect(fake.requests[0].body).toMatchObject({
      type: 'document',
      document: { link: 'https://cdn.example.com/invoice.pdf', caption: 'Hello there', filename: 'invoice.pdf' },
    });
  });

  it('maps an invalid recipient (400, code 131026) to rejected PROVIDER_REJECTED', async () => {
    fake.reply = () => ({
      status: 400,
      body: {
        error: {
          message: 'Message undeliverable',
          type: 'OAuthException',
          code: 131026,
          error_data: { details: 'Recipient cannot be reached' },
        },
      },
    });
    const outcome = await sut.send(message());
    expect(outcome).toMatchObject({ status: 'rejected', code: 'PROVIDER_REJECTED' });
    expect(outcome.status === 'rejected' && outcome.message).toContain('131026');
  });

  it('maps HTTP 429 to rate_limited with Retry-After', async () => {
    fake.reply = () => ({
      status: 429,
      headers: { 'Retry-After': '7' },
      body: { error: { message: 'Too many', code: 4 } },
    });
    const err = await providerError(sut.send(message()));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterMs).toBe(7000);
  });

  it.each([80007, 80008, 130429, 131048, 131056])(
    'maps error code %i to rate_limited even on HTTP 400',
    async (code) => {
      fake.reply = () => ({ status: 400, body: { error: { message: 'Rate limit hit', code } } });
      expect((await providerError(sut.send(message()))).kind).toBe('rate_limited');
    },
  );

  it('maps 5xx to unavailable', async () => {
    fake.reply = () => ({ status: 503, body: { error: { message: 'Service temporarily unavailable', code: 131016 } } });
    expect((await providerError(sut.send(message()))).kind).toBe('unavailable');
  });

  it('maps a timeout to unavailable', async () => {
    fake.reply = () => ({ status: 200, hang: true });
    const started = Date.now();
    const err = await providerError(sut.send(message()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toMatch(/timed out after 400 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('maps a refused connection to unavailable', async () => {
    const dead = adapter({
      CHATAPP_CLOUD_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
      CHATAPP_CLOUD_TOKEN: TOKEN,
      CHATAPP_CLOUD_PHONE_NUMBER_ID: '1055',
    });
    const err = await providerError(dead.send(message()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('maps other 4xx (expired token, unknown template) to failed', async () => {
    fake.reply = () => ({
      status: 401,
      body: { error: { message: 'Error validating access token', type: 'OAuthException', code: 190 } },
    });
    expect((await providerError(sut.send(message()))).kind).toBe('failed');
    fake.reply = () => ({
      status: 404,
      body: { error: { message: 'Template name does not exist in the translation', code: 132001 } },
    });
    expect((await providerError(sut.send(message()))).kind).toBe('failed');
  });

  it('validates its settings only when selected, naming the variable', () => {
    expect(() => adapter({ CHATAPP_CLOUD_PHONE_NUMBER_ID: '1055' })).toThrow(/CHATAPP_CLOUD_TOKEN/);
    expect(() => adapter({ CHATAPP_CLOUD_TOKEN: TOKEN })).toThrow(/CHATAPP_CLOUD_PHONE_NUMBER_ID/);
    expect(() =>
      adapter({ CHATAPP_CLOUD_TOKEN: TOKEN, CHATAPP_CLOUD_PHONE_NUMBER_ID: '1', CHATAPP_CLOUD_BASE_URL: 'ftp://x' }),
    ).toThrow(/CHATAPP_CLOUD_BASE_URL/);
    expect(() =>
      adapter({ CHATAPP_CLOUD_TOKEN: TOKEN, CHATAPP_CLOUD_PHONE_NUMBER_ID: '1', CHATAPP_CLOUD_API_VERSION: '21' }),
    ).toThrow(/CHATAPP_CLOUD_API_VERSION/);
    expect(() => adapter({ PROVIDER_CHATAPP: 'sandbox' })).not.toThrow();
  });

  it('is not usable for sending unless selected', async () => {
    const idle = adapter({ PROVIDER_CHATAPP: 'sandbox' });
    await expect(idle.send(message())).rejects.toThrow(/cloud_api is not set up/);
    expect(fake.requests).toHaveLength(0);
  });
});
