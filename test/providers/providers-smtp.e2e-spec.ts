import { SystemDnsResolver } from '../../src/common/net/dns-resolver';
import { GuardedFetcher } from '../../src/common/net/guarded-fetcher';
import { refusedTargetText, TargetPolicy } from '../../src/common/net/target-policy';
import { Env } from '../../src/config/app-config';
import { OutboundMessage, ProviderError } from '../../src/providers/provider.types';
import { ProvidersRegistry } from '../../src/providers/providers.registry';
import { SmtpProvider } from '../../src/providers/smtp/smtp.provider';
import { adapterConfig } from '../providers-fakes/adapter-config';
import { closedPort, HttpFake } from '../providers-fakes/http-fake';
import { SmtpFake } from '../providers-fakes/smtp-fake';
import { accountIdOf } from '../../src/common/account-id';

const CREDS = { user: 'mailer', pass: 's3cret' };

function message(fields: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    messageId: 'msg_mail_1',
    accountId: accountIdOf('acc_1'),
    channel: 'email',
    to: 'sara@example.org',
    subject: 'Your order',
    text: 'It shipped.',
    html: '<p>It shipped.</p>',
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

describe('SmtpProvider against a real SMTP server (smtp-server)', () => {
  let server: SmtpFake;
  const opened: SmtpProvider[] = [];

  function adapter(env: Env = {}): SmtpProvider {
    const config = adapterConfig({
      PROVIDER_EMAIL: 'smtp',
      // Healthy exchanges get 3 s (a loaded CI box); the timeout case asks for 500 ms.
      PROVIDER_TIMEOUT_MS: '3000',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(server.port),
      SMTP_USER: CREDS.user,
      SMTP_PASS: CREDS.pass,
      SMTP_FROM: 'Notifications <no-reply@notify.example.com>',
      ...env,
    });
    const provider = new SmtpProvider(
      new ProvidersRegistry(config),
      config,
      new GuardedFetcher(new TargetPolicy(config, new SystemDnsResolver())),
    );
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
    for (const p of opened.splice(0)) p.onApplicationShutdown();
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
    const err = await providerError(adapter({ PROVIDER_TIMEOUT_MS: '500' }).send(message({ to: 'hang@example.org' })));
    expect(err.kind).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("wrong credentials are a provider failure (not the recipient's fault)", async () => {
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

  describe('attachments: downloaded by our guarded fetcher, mailed as bytes', () => {
    let files: HttpFake;
    let internal: HttpFake;
    const PDF = '%PDF-1.4 invoice 42';
    const base64Of = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64');

    beforeAll(async () => {
      files = await new HttpFake().start();
      internal = await new HttpFake().start();
      internal.reply = () => ({ status: 200, body: 'INTERNAL-SECRET' });
    });
    afterAll(async () => {
      await files.stop();
      await internal.stop();
    });
    beforeEach(() => {
      files.requests.length = 0;
      internal.requests.length = 0;
    });

    const insecure = { WEBHOOK_ALLOW_INSECURE: 'true' };

    it('fetches the file once and hands nodemailer its content, named from the URL', async () => {
      files.reply = () => ({ status: 200, body: PDF, headers: { 'Content-Type': 'application/pdf' } });
      const outcome = await adapter(insecure).send(
        message({ attachment: { url: `${files.baseUrl}/docs/invoice-42.pdf` } }),
      );
      expect(outcome).toMatchObject({ status: 'sent' });
      expect(files.requests).toHaveLength(1);
      expect(server.received[0].raw).toContain('filename=invoice-42.pdf');
      expect(server.received[0].raw.replace(/\r?\n/g, '')).toContain(base64Of(PDF));
    });

    it('follows up to 3 redirects, each checked; a 4th is refused and nothing is mailed', async () => {
      files.reply = (req) => {
        const n = Number(/\/hop(\d)/.exec(req.path)?.[1] ?? '0');
        return n < 3 ? { status: 302, headers: { Location: `/hop${n + 1}` } } : { status: 200, body: PDF };
      };
      await expect(
        adapter(insecure).send(message({ attachment: { url: `${files.baseUrl}/hop0` } })),
      ).resolves.toMatchObject({ status: 'sent' });
      expect(files.requests.map((r) => r.path)).toEqual(['/hop0', '/hop1', '/hop2', '/hop3']);
      files.requests.length = 0;
      server.received.length = 0;
      files.reply = () => ({ status: 302, headers: { Location: '/again' } });
      const outcome = await adapter(insecure).send(message({ attachment: { url: `${files.baseUrl}/loop` } }));
      expect(outcome).toMatchObject({ status: 'rejected', code: 'INVALID_ATTACHMENT' });
      expect(files.requests).toHaveLength(4);
      expect(server.received).toHaveLength(0);
    });

    // The attack: our check and nodemailer's parser read the string differently, and
    // nodemailer followed redirects unchecked; the internal answer came back in the email.
    it('a URL whose serialisation differs (https:///host) is refused before any request, in every mode', async () => {
      const port = new URL(internal.baseUrl).port;
      for (const url of [
        `https:///127.0.0.1:${port}/x`,
        `http:///127.0.0.1:${port}/x`,
        `http:\\127.0.0.1:${port}\\x`,
      ]) {
        const outcome = await adapter(insecure).send(message({ attachment: { url } }));
        expect(outcome).toEqual({
          status: 'rejected',
          code: 'INVALID_ATTACHMENT',
          message: refusedTargetText('attachment.url'),
        });
      }
      expect(internal.requests).toHaveLength(0);
      expect(server.received).toHaveLength(0);
    });

    it('a redirect to a refused target (credentials) is not followed: nothing of it is mailed', async () => {
      files.reply = () => ({
        status: 302,
        headers: { Location: `http://admin:pw@127.0.0.1:${new URL(internal.baseUrl).port}/secret` },
      });
      const outcome = await adapter(insecure).send(message({ attachment: { url: `${files.baseUrl}/a.pdf` } }));
      expect(outcome).toEqual({
        status: 'rejected',
        code: 'INVALID_ATTACHMENT',
        message: refusedTargetText('attachment.url'),
      });
      expect(internal.requests).toHaveLength(0);
      expect(server.received).toHaveLength(0);
    });

    it('strict mode: a loopback attachment (stored before, or rebinding since validation) is refused at fetch time', async () => {
      files.reply = () => ({ status: 200, body: PDF });
      const outcome = await adapter({ WEBHOOK_ALLOW_INSECURE: 'false' }).send(
        message({ attachment: { url: `https://127.0.0.1:${new URL(files.baseUrl).port}/a.pdf` } }),
      );
      expect(outcome).toEqual({
        status: 'rejected',
        code: 'INVALID_ATTACHMENT',
        message: refusedTargetText('attachment.url'),
      });
      expect(files.requests).toHaveLength(0);
      expect(server.received).toHaveLength(0);
    });

    it('a file over ATTACHMENT_MAX_BYTES or an error status is INVALID_ATTACHMENT, nothing mailed', async () => {
      files.reply = () => ({ status: 200, body: 'x'.repeat(5000) });
      await expect(
        adapter({ ...insecure, ATTACHMENT_MAX_BYTES: '1000' }).send(
          message({ attachment: { url: `${files.baseUrl}/big` } }),
        ),
      ).resolves.toMatchObject({
        status: 'rejected',
        code: 'INVALID_ATTACHMENT',
        message: 'attachment.url is larger than 1000 bytes',
      });
      files.reply = () => ({ status: 404 });
      await expect(
        adapter(insecure).send(message({ attachment: { url: `${files.baseUrl}/gone` } })),
      ).resolves.toMatchObject({
        status: 'rejected',
        code: 'INVALID_ATTACHMENT',
        message: 'attachment.url could not be fetched (HTTP 404)',
      });
      expect(server.received).toHaveLength(0);
    });
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
