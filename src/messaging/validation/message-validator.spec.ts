import { loadConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import type { DnsResolver } from '../../common/net/dns-resolver';
import { refusedTargetText, TargetPolicy } from '../../common/net/target-policy';
import type {
  DestinationCountries,
  GeoPermissionsLookup,
  MarketingRules,
  SenderLookup,
  SessionLookup,
  TemplateForSend,
  TemplateLookup,
} from './lookups';
import { MessageValidator } from './message-validator';
import { accountIdOf } from '../../common/account-id';

// In-memory directories stand in for the senders/templates/chatapp-web modules; they count calls
// so the test can prove the context memoises lookups (bulk validation speed depends on it).
class Directories implements SenderLookup, TemplateLookup, SessionLookup {
  calls = 0;
  async findApprovedByName(_a: string, name: string) {
    this.calls++;
    return name === 'Acme' ? { id: 'snd_1', name: 'Acme', type: 'transactional' as const } : null;
  }
  async findDefaultApproved() {
    this.calls++;
    return null;
  }
  async findForSend(_a: string, id: string): Promise<TemplateForSend & { name: string; status: string; kind: string }> {
    this.calls++;
    return {
      id,
      name: 'order_ready',
      category: 'sms',
      subType: 'utility',
      status: 'active',
      provider: 'internal',
      language: null,
      body: null,
      content: 'Order {{1}} at {{2}}',
      emailSubject: null,
      variableCount: 2,
      buttons: [],
      allowsHeaderMediaOverride: false,
      providerTemplateId: null,
      kind: 'web',
    };
  }
}

// Stands in for the fraud module's geo permissions: SA only, every country on chatapp; counts reads.
class Geo implements GeoPermissionsLookup {
  calls = 0;
  async allowedDestinations(): Promise<DestinationCountries> {
    this.calls++;
    return { local_sms: ['SA'], chatapp: '*', chatapp_web: ['AE', 'SA'] };
  }
}

// Stands in for DNS (the real TargetPolicy runs on it); counts lookups to prove one per host.
class Dns implements DnsResolver {
  calls: string[] = [];
  async resolve(hostname: string) {
    this.calls.push(hostname);
    return [{ address: hostname === 'internal.example' ? '10.0.0.7' : '93.184.215.14', family: 4 as const }];
  }
}

describe(MessageValidator.name, () => {
  const dirs = new Directories();
  const dns = new Dns();
  const config = loadConfig({ NODE_ENV: 'test' });
  const geo = new Geo();
  const rules: MarketingRules = {
    footer: { ar: 'أرسل إيقاف', en: 'Reply STOP to opt out' },
    allowedLinkDomains: [],
    window: { start: '09:00', end: '22:00', days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
    defaultTimeZones: {},
  };
  const compliance = { marketingRules: async () => rules };
  const sut = new MessageValidator(
    config,
    new Clock(),
    dirs,
    dirs,
    dirs,
    geo,
    new TargetPolicy(config, dns),
    compliance,
  );

  it('normalises, renders templates and attaches the price', async () => {
    const ctx = sut.createContext(accountIdOf('acc_1'));
    const m = await sut.validate(ctx, {
      to: '0501234567',
      channel: 'local_sms',
      messageType: 'template',
      template: { id: 'tpl_1', variablesIndexed: ['7', 'noon'] },
    });
    expect(m).toMatchObject({
      to: '+966501234567',
      sender: 'MsgService',
      text: 'Order 7 at noon',
      price: 5,
      template: { id: 'tpl_1', variables: ['7', 'noon'] },
    });
  });

  // Throughput itself is measured by `npm run bench:bulk`; here only the deterministic part:
  // once the context has cached its lookups, rows cost no directory (database) calls.
  it('memoises sender and template lookups across many bulk rows', async () => {
    const ctx = sut.createContext(accountIdOf('acc_1'));
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      to: `+9665${String(10_000_000 + (i % 5000) * 7)}`,
      channel: 'local_sms',
      messageType: i % 2 ? 'free_text' : 'template',
      ...(i % 2
        ? { content: { text: `Hello ${i}` }, sender: 'Acme' }
        : { template: { id: 'tpl_1', variablesIndexed: [String(i), 'x'] } }),
    }));
    dirs.calls = 0;
    geo.calls = 0;
    for (const row of rows) await sut.validate(ctx, row, { bulkRow: true });
    expect(dirs.calls).toBeLessThanOrEqual(3);
    expect(geo.calls).toBe(1);
  });

  it('refuses a phone recipient outside the geo permissions of its channel, naming country and channel', async () => {
    const ctx = sut.createContext(accountIdOf('acc_1'));
    const text = { messageType: 'free_text', content: { text: 'x' } };
    await expect(sut.validate(ctx, { ...text, channel: 'local_sms', to: '+1 415 555 0101' })).rejects.toMatchObject({
      code: 'DESTINATION_NOT_ALLOWED',
      message: 'to: +14155550101 is in US; this account may send local_sms to SA only (geo permissions)',
    });
    await expect(sut.validate(ctx, { ...text, channel: 'local_sms', to: '+80012345678' })).rejects.toMatchObject({
      code: 'DESTINATION_NOT_ALLOWED',
      message: 'to: +80012345678 belongs to no country; this account may send local_sms to SA only (geo permissions)',
    });
    await expect(sut.validate(ctx, { ...text, channel: 'chatapp', to: '+14155550101' })).resolves.toMatchObject({
      to: '+14155550101',
    });
    await expect(
      sut.validate(ctx, { ...text, channel: 'email', to: 'a@b.co', content: { subject: 's', text: 't' } }),
    ).resolves.toMatchObject({ to: 'a@b.co' });
  });

  it.each([
    ['14155550101@c.us', 'DESTINATION_NOT_ALLOWED'],
    ['14155550101@s.whatsapp.net', 'DESTINATION_NOT_ALLOWED'],
    ['971501234567@c.us', null],
    ['120363025246125486@g.us', null],
    ['not-a-phone@c.us', null],
  ])('chatapp_web chat id %s: %s', async (chatId, code) => {
    const ctx = sut.createContext(accountIdOf('acc_1'));
    const msg = {
      channel: 'chatapp_web',
      messageType: 'free_text',
      content: { text: 'x' },
      chatId,
      conversationContext: { moduleType: 'chatapp_web', accountId: 'main', chatId },
    };
    if (code)
      await expect(sut.validate(ctx, msg)).rejects.toMatchObject({
        code,
        message: expect.stringMatching(/^chatId: .* is in US; this account may send chatapp_web to AE, SA only/),
      });
    else await expect(sut.validate(ctx, msg)).resolves.toMatchObject({ to: chatId });
  });

  it('refuses scheduleAt and arrays in bulk rows', async () => {
    const ctx = sut.createContext(accountIdOf('acc_1'));
    const base = { channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } };
    await expect(sut.validate(ctx, { ...base, to: ['+966501234567'] }, { bulkRow: true })).rejects.toMatchObject({
      code: 'INVALID_RECIPIENT',
    });
    await expect(
      sut.validate(ctx, { ...base, to: '+966501234567', scheduleAt: '2999-01-01T00:00:00Z' }, { bulkRow: true }),
    ).rejects.toMatchObject({ code: 'INVALID_SCHEDULE' });
  });

  it('checks attachment URLs once per host per context; a refused host is INVALID_ATTACHMENT on attachment.url', async () => {
    const ctx = sut.createContext(accountIdOf('acc_1'));
    dns.calls = [];
    const row = (url: string) => ({
      to: `a@b.co`,
      channel: 'email',
      messageType: 'free_text',
      content: { subject: 'S', text: 'T' },
      attachment: { url },
    });
    for (let i = 0; i < 500; i++) {
      await expect(sut.validate(ctx, row(`https://cdn.example/f/${i}.pdf`), { bulkRow: true })).resolves.toMatchObject({
        attachment: { url: `https://cdn.example/f/${i}.pdf` },
      });
      await expect(
        sut.validate(ctx, row(`https://internal.example/f/${i}.pdf`), { bulkRow: true }),
      ).rejects.toMatchObject({ code: 'INVALID_ATTACHMENT', message: refusedTargetText('attachment.url') });
    }
    expect(dns.calls).toEqual(['cdn.example', 'internal.example']);
  });
});
