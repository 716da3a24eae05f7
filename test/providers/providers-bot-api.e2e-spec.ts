import { Logger } from '@nestjs/common';
import { Env } from '../../src/config/app-config';
import { BotApiProvider } from '../../src/providers/bot-api/bot-api.provider';
import { OutboundMessage, ProviderError } from '../../src/providers/provider.types';
import { ProvidersRegistry } from '../../src/providers/providers.registry';
import { adapterConfig } from '../providers-fakes/adapter-config';
import { closedPort, HttpFake } from '../providers-fakes/http-fake';
import { accountIdOf } from '../../src/common/account-id';

const TOKEN = '123456:ABC-secret';

function adapter(env: Env): BotApiProvider {
  const config = adapterConfig({ PROVIDER_MESSAGING_BOT: 'bot_api', PROVIDER_TIMEOUT_MS: '400', ...env });
  const provider = new BotApiProvider(new ProvidersRegistry(config), config);
  provider.onModuleInit();
  return provider;
}

function message(fields: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    messageId: 'msg_bot_1',
    accountId: accountIdOf('acc_1'),
    channel: 'messaging_bot',
    to: '987654321',
    text: 'Hi from the bot',
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

describe('BotApiProvider against a local Bot-API fake', () => {
  let fake: HttpFake;
  let sut: BotApiProvider;

  beforeAll(async () => {
    fake = await new HttpFake().start();
  });
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.reply = (req) => ({
      status: 200,
      body: {
        ok: true,
        result: { message_id: 77, chat: { id: Number((req.body as { chat_id: string }).chat_id) }, text: 'Hi' },
      },
    });
    sut = adapter({ BOT_API_BASE_URL: fake.baseUrl, BOT_API_TOKEN: TOKEN });
  });

  it('POSTs sendMessage {chat_id, text} to /bot<token>/ and returns chat:message ids', async () => {
    await expect(sut.send(message())).resolves.toEqual({ status: 'sent', providerMessageId: '987654321:77' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: `/bot${TOKEN}/sendMessage`,
      body: { chat_id: '987654321', text: 'Hi from the bot' },
    });
    expect(fake.requests[0].headers['content-type']).toBe('application/json');
  });

  it('sends an attachment with sendPhoto / sendDocument and the text as caption', async () => {
    await sut.send(message({ attachment: { url: 'https://cdn.example.com/a.jpg', mimeType: 'image/jpeg' } }));
    await sut.send(message({ attachment: { url: 'https://cdn.example.com/a.pdf', mimeType: 'application/pdf' } }));
    expect(fake.requests.map((r) => r.path)).toEqual([`/bot${TOKEN}/sendPhoto`, `/bot${TOKEN}/sendDocument`]);
    expect(fake.requests[0].body).toEqual({
      chat_id: '987654321',
      photo: 'https://cdn.example.com/a.jpg',
      caption: 'Hi from the bot',
    });
  });

  it('maps 400 "chat not found" to rejected PROVIDER_REJECTED', async () => {
    fake.reply = () => ({
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
    });
    await expect(sut.send(message())).resolves.toEqual({
      status: 'rejected',
      code: 'PROVIDER_REJECTED',
      message: '400: Bad Request: chat not found',
    });
  });

  it('maps 403 "bot was blocked by the user" to rejected', async () => {
    fake.reply = () => ({
      status: 403,
      body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
    });
    await expect(sut.send(message())).resolves.toMatchObject({ status: 'rejected', code: 'PROVIDER_REJECTED' });
  });

  it('maps 429 with parameters.retry_after to rate_limited (retryAfterMs)', async () => {
    fake.reply = () => ({
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 3',
        parameters: { retry_after: 3 },
      },
    });
    const err = await providerError(sut.send(message()));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterMs).toBe(3000);
  });

  it('maps 5xx to unavailable', async () => {
    fake.reply = () => ({ status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });
    expect((await providerError(sut.send(message()))).kind).toBe('unavailable');
  });

  it('maps a timeout to unavailable without leaking the token', async () => {
    fake.reply = () => ({ status: 200, hang: true });
    const err = await providerError(sut.send(message()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toMatch(/timed out after 400 ms/);
    expect(err.message).not.toContain(TOKEN);
  });

  it('maps a refused connection to unavailable', async () => {
    const dead = adapter({ BOT_API_BASE_URL: `http://127.0.0.1:${await closedPort()}`, BOT_API_TOKEN: TOKEN });
    const err = await providerError(dead.send(message()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).not.toContain(TOKEN);
  });

  it('maps other errors (bad token, too long) to failed', async () => {
    fake.reply = () => ({ status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } });
    expect((await providerError(sut.send(message()))).kind).toBe('failed');
    fake.reply = () => ({
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: message is too long' },
    });
    expect((await providerError(sut.send(message()))).kind).toBe('failed');
  });

  it('logs one line per call with our message id, the method and the chat, never the token', async () => {
    const lines: string[] = [];
    const record = (line: unknown): void => void lines.push(String(line));
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(record);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(record);
    try {
      await sut.send(message());
      fake.reply = () => ({
        status: 400,
        body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
      });
      await sut.send(message({ messageId: 'msg_bot_2' }));
      fake.reply = () => ({ status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });
      await providerError(sut.send(message({ messageId: 'msg_bot_3' })));
    } finally {
      log.mockRestore();
      warn.mockRestore();
    }
    expect(lines).toEqual([
      'bot message msg_bot_1 sendMessage chat 987654321 delivered as 987654321:77',
      'bot message msg_bot_2 sendMessage chat 987654321 rejected: 400: Bad Request: chat not found',
      expect.stringMatching(/^bot message msg_bot_3 sendMessage chat 987654321 not settled: /),
    ]);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('requires BOT_API_TOKEN only when selected and checks BOT_API_BASE_URL', () => {
    expect(() => adapter({})).toThrow(/BOT_API_TOKEN/);
    expect(() => adapter({ BOT_API_TOKEN: TOKEN, BOT_API_BASE_URL: 'not a url' })).toThrow(/BOT_API_BASE_URL/);
    expect(() => adapter({ PROVIDER_MESSAGING_BOT: 'sandbox' })).not.toThrow();
  });
});
