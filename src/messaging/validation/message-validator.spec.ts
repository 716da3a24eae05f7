import { loadConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import type { TemplateForSend } from '../../templates/template.types';
import { ApiError } from '../../common/errors';
import type { SenderLookup, SessionLookup, TargetPolicy, TemplateLookup } from './lookups';
import { MessageValidator } from './message-validator';

// In-memory directories stand in for the senders/templates/chatapp-web modules; they count calls
// so the test can prove the context memoises lookups (bulk validation speed depends on it).
class Directories implements SenderLookup, TemplateLookup, SessionLookup {
  calls = 0;
  async findApprovedByName(_a: string, name: string) {
    this.calls++;
    return name === 'Acme' ? { id: 'snd_1', name: 'Acme' } : null;
  }
  async findDefaultApproved() {
    this.calls++;
    return null;
  }
  async findForSend(_a: string, id: string): Promise<TemplateForSend & { name: string; status: string; kind: string }> {
    this.calls++;
    return {
      id, name: 'order_ready', category: 'sms', status: 'active', provider: 'internal', language: null, body: null,
      content: 'Order {{1}} at {{2}}', emailSubject: null, variableCount: 2, buttons: [], allowsHeaderMediaOverride: false, providerTemplateId: null, kind: 'web',
    };
  }
}

// Stands in for the webhooks module's SSRF check (DNS); counts calls to prove one check per host.
class Targets implements TargetPolicy {
  calls: string[] = [];
  async assertAllowedTarget(url: unknown, field = 'url') {
    this.calls.push(String(url));
    if (new URL(String(url)).hostname === 'internal.example') throw ApiError.validation(`${field} must point to a public address`);
  }
}

describe(MessageValidator.name, () => {
  const dirs = new Directories();
  const targets = new Targets();
  const sut = new MessageValidator(loadConfig({ NODE_ENV: 'test' }), new Clock(), dirs, dirs, dirs, targets);

  it('normalises, renders templates and attaches the price', async () => {
    const ctx = sut.createContext('acc_1');
    const m = await sut.validate(ctx, { to: '0501234567', channel: 'local_sms', messageType: 'template', template: { id: 'tpl_1', variablesIndexed: ['7', 'noon'] } });
    expect(m).toMatchObject({ to: '+966501234567', sender: 'MsgService', text: 'Order 7 at noon', price: 5, template: { id: 'tpl_1', variables: ['7', 'noon'] } });
  });

  // Throughput itself is measured by `npm run bench:bulk`; here only the deterministic part:
  // once the context has cached its lookups, rows cost no directory (database) calls.
  it('memoises sender and template lookups across many bulk rows', async () => {
    const ctx = sut.createContext('acc_1');
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      to: `+9665${String(10_000_000 + (i % 5000) * 7)}`, channel: 'local_sms', messageType: i % 2 ? 'free_text' : 'template',
      ...(i % 2 ? { content: { text: `Hello ${i}` }, sender: 'Acme' } : { template: { id: 'tpl_1', variablesIndexed: [String(i), 'x'] } }),
    }));
    dirs.calls = 0;
    for (const row of rows) await sut.validate(ctx, row, { bulkRow: true });
    expect(dirs.calls).toBeLessThanOrEqual(3);
  });

  it('refuses scheduleAt and arrays in bulk rows', async () => {
    const ctx = sut.createContext('acc_1');
    const base = { channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } };
    await expect(sut.validate(ctx, { ...base, to: ['+966501234567'] }, { bulkRow: true })).rejects.toMatchObject({ code: 'INVALID_RECIPIENT' });
    await expect(sut.validate(ctx, { ...base, to: '+966501234567', scheduleAt: '2999-01-01T00:00:00Z' }, { bulkRow: true })).rejects.toMatchObject({ code: 'INVALID_SCHEDULE' });
  });

  it('checks attachment URLs once per host per context; a refused host is INVALID_ATTACHMENT on attachment.url', async () => {
    const ctx = sut.createContext('acc_1');
    targets.calls = [];
    const row = (url: string) => ({ to: `a@b.co`, channel: 'email', messageType: 'free_text', content: { subject: 'S', text: 'T' }, attachment: { url } });
    for (let i = 0; i < 500; i++) {
      await expect(sut.validate(ctx, row(`https://cdn.example/f/${i}.pdf`), { bulkRow: true })).resolves.toMatchObject({ attachment: { url: `https://cdn.example/f/${i}.pdf` } });
      await expect(sut.validate(ctx, row(`https://internal.example/f/${i}.pdf`), { bulkRow: true }))
        .rejects.toMatchObject({ code: 'INVALID_ATTACHMENT', message: 'attachment.url must point to a public address' });
    }
    expect(targets.calls).toEqual(['https://cdn.example/f/0.pdf', 'https://internal.example/f/0.pdf']);
  });
});
