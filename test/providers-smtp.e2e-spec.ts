import { Env } from '../src/config/app-config';
import { OutboundMessage, ProviderError } from '../src/providers/provider.types';
import { ProvidersRegistry } from '../src/providers/providers.registry';
import { SmtpProvider } from '../src/providers/smtp/smtp.provider';
import { adapterConfig } from './providers-fakes/adapter-config';
import { closedPort } from './providers-fakes/http-fake';
import { SmtpFake } from './providers-fakes/smtp-fake';

const CREDS = { user: 'mailer', pass: 's3cret' };

function message(fields: Partial<OutboundMessage> = {}): OutboundMessage {
  return { messageId: 'msg_mail_1', accountId: 'acc_1', channel: 'email', to: 'sara@example.org', subject: 'Your order', text: 'It shipped.', html: '<p>It shipped.</p>', ...fields };
}

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('SmtpProvider against a real SMTP server (smtp-server)', () => {
  let server: SmtpFake;
  const opened: SmtpProvider[] = [];

  function adapter(env: Env = {}): SmtpProvider {
    const config = adapterConfig({
      PROVIDER_EMAIL: 'smtp',
      PROVIDER_TIMEOUT_MS: '500',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(server.port),
      SMTP_USER: CREDS.user,
      SMTP_PASS: CREDS.pass,
      SMTP_FROM: 'Notifications <no-reply@notify.example.com>',
      ...env,
    });
    const provider = new SmtpProvider(new ProvidersRegistry(config), config);
    provider.onModuleInit();
    opened.push(provider);
    return provider;
  }

  beforeAll(async () => {
    server = await new SmtpFake(CREDS).start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.received.length = 0;
    server.refuseConnections = false;
  });
  afterEach(() => {
    for (const p of opened.splice(0)) p.onModuleDestroy();
  });

  it('delivers with auth, our id as Message-ID and X-Message-Ref', async () => {
    const outcome = await adapter().send(message());
    expect(outcome).toEqual({ status: 'sent', providerMessageId: '<msg_mail_1@notify.example.com>' });
    expect(server.received).toHaveLength(1);
    const mail = server.received[0];
    expect(mail.from).toBe('no-reply@notify.example.com');
    expect(mail.to).toEqual(['sara@example.org']);
    expect(mail.raw).toMatch(/^Message-ID: <msg_mail_1@notify\.example\.com>\r?$/m);
    expect(mail.raw).toMatch(/^X-Message-Ref: msg_mail_1\r?$/m);
    expect(mail.raw).toMatch(/^Subject: Your order\r?$/m);
    expect(mail.raw).toContain('It shipped.');
    expect(mail.raw).toContain('<p>It shipped.</p>');
  });

  it('a permanent 5xx refusal at RCPT TO is rejected PROVIDER_REJECTED', async () => {
    const outcome = await adapter().send(message({ to: 'reject-me@example.org' }));
    expect(outcome).toMatchObject({ status: 'rejected', code: 'PROVIDER_REJECTED' });
    expect(outcome.status === 'rejected' && outcome.message).toContain('550');
    expect(server.received).toHaveLength(0);
  });

  it('a permanent 5xx refusal after DATA is rejected too', async () => {
    const outcome = await adapter().send(message({ to: 'spam@example.org' }));
    expect(outcome).toMatchObject({ status: 'rejected', code: 'PROVIDER_REJECTED' });
    expect(outcome.status === 'rejected' && outcome.message).toContain('554');
  });

  it('a transient 4xx reply is unavailable', async () => {
    const err = await providerError(adapter().send(message({ to: 'busy@example.org' })));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toContain('451');
  });

  it('421 at connection is unavailable', async () => {
    server.refuseConnections = true;
    const err = await providerError(adapter().send(message()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toContain('421');
  });

  it('a refused connection is unavailable', async () => {
    const err = await providerError(adapter({ SMTP_PORT: String(await closedPort()) }).send(message()));
    expect(err.kind).toBe('unavailable');
  });

  it('a server that never answers DATA times out as unavailable', async () => {
    const started = Date.now();
    const err = await providerError(adapter().send(message({ to: 'hang@example.org' })));
    expect(err.kind).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('wrong credentials are a provider failure (not the recipient\'s fault)', async () => {
    const err = await providerError(adapter({ SMTP_PASS: 'wrong' }).send(message()));
    expect(err.kind).toBe('failed');
    expect(server.received).toHaveLength(0);
  });

  it('keeps sending over the pool after a failure', async () => {
    const sut = adapter();
    await sut.send(message({ to: 'reject-me@example.org' }));
    await expect(sut.send(message({ messageId: 'msg_mail_2' }))).resolves.toMatchObject({ status: 'sent' });
    await expect(sut.send(message({ messageId: 'msg_mail_3' }))).resolves.toMatchObject({ status: 'sent' });
    expect(server.received).toHaveLength(2);
  });

  it('validates settings only when selected, naming the variable', () => {
    expect(() => adapter({ SMTP_HOST: '' })).toThrow(/SMTP_HOST/);
    expect(() => adapter({ SMTP_FROM: '' })).toThrow(/SMTP_FROM/);
    expect(() => adapter({ SMTP_FROM: 'not-an-address' })).toThrow(/SMTP_FROM/);
    expect(() => adapter({ SMTP_PORT: 'abc' })).toThrow(/SMTP_PORT/);
    expect(() => adapter({ SMTP_SECURE: 'maybe' })).toThrow(/SMTP_SECURE/);
    expect(() => adapter({ SMTP_PASS: '' })).toThrow(/SMTP_USER and SMTP_PASS/);
    expect(() => adapter({ PROVIDER_EMAIL: 'sandbox', SMTP_HOST: '' })).not.toThrow();
  });
});
