import { parse } from 'csv-parse/sync';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { privacyHelpers } from '../support/privacy-helpers';

// GET /api/v2/messages/export.csv: the message log of a period, streamed, as the bulk rows CSV.
const T0 = Date.parse('2026-11-01T00:00:00.000Z');

describe('Messages CSV export (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const h = privacyHelpers(() => t);
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount();
  });

  const exportCsv = (query: Record<string, string>, key = acc.key) =>
    t.http().get('/api/v2/messages/export.csv').set('X-API-Key', key).query(query);

  /** `n` settled messages created one second apart from `start`, in multi-row inserts. */
  async function seed(accountId: string, n: number, start = T0, errorMessage: string | null = null): Promise<void> {
    for (let from = 0; from < n; from += 500) {
      const rows = Array.from({ length: Math.min(500, n - from) }, (_, i) => from + i);
      const params = rows.flatMap((i) => [
        `msg_exp_${accountId}_${String(i).padStart(6, '0')}`,
        accountId,
        `+9665${String(10_000_000 + i)}`,
        5,
        errorMessage,
        start + i * 1000,
        start + i * 1000,
      ]);
      await h
        .db()
        .query(
          `INSERT INTO messages (id, account_id, channel, message_type, recipient, status, cost, paid_from, error_message, attempts, created_at, updated_at) VALUES ${rows.map(() => "(?, ?, 'local_sms', 'free_text', ?, 'sent', ?, 'wallet', ?, 1, ?, ?)").join(', ')}`,
          params,
        );
    }
  }

  it('streams every message of the period, oldest first, from inclusive and to exclusive; header and file name', async () => {
    await seed(acc.id, 2500);
    const other = await t.createAccount();
    await seed(other.id, 10);
    const from = new Date(T0 + 1000).toISOString();
    const to = new Date(T0 + 2400 * 1000).toISOString();
    const res = await exportCsv({ from, to });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="messages-2026-11-01T000001\.000Z-.*\.csv"$/,
    );
    const records: string[][] = parse(res.text);
    expect(records[0]).toEqual([
      'id',
      'createdAt',
      'to',
      'channel',
      'messageType',
      'sender',
      'templateId',
      'status',
      'cost',
      'paidFrom',
      'encoding',
      'segments',
      'errorCode',
      'errorMessage',
      'bulkJobId',
      'rowIndex',
      'scheduledAt',
      'sentAt',
      'deliveredAt',
      'readAt',
      'failedAt',
    ]);
    const body = records.slice(1);
    // Seconds 1 .. 2399: 2399 messages across three pages, none of the other account's.
    expect(body).toHaveLength(2399);
    expect(body[0].slice(0, 5)).toEqual([
      `msg_exp_${acc.id}_000001`,
      new Date(T0 + 1000).toISOString(),
      '+966510000001',
      'local_sms',
      'free_text',
    ]);
    expect(body[2398][0]).toBe(`msg_exp_${acc.id}_002399`);
    expect(body.every((r) => r[0].startsWith(`msg_exp_${acc.id}_`) && r[7] === 'sent' && r[8] === '5')).toBe(true);
    expect(res.text.split('\r\n')).toHaveLength(2401);
  });

  it('neutralises formula cells and shows an erased recipient as its hash', async () => {
    await seed(acc.id, 1, T0, '=HYPERLINK("http://x")');
    const records: string[][] = parse(
      (await exportCsv({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' })).text,
    );
    expect(records[1][13]).toBe('\'=HYPERLINK("http://x")');
    expect(records[1][2]).toBe('+966510000000');
    const erasure = await h.requestErasure(acc, '+966510000000');
    await h.completed(acc, erasure.body.data.erasure.id);
    const after: string[][] = parse(
      (await exportCsv({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' })).text,
    );
    expect(after[1][2]).toBe(h.hash(acc.id, '+966510000000'));
    expect(after[1][13]).toBe('');
  });

  it('refuses a missing, malformed or empty period (400 before any CSV) and keys without messages:read', async () => {
    expectError(await exportCsv({}), 400, 'VALIDATION_ERROR');
    expectError(await exportCsv({ from: '2026-11-01T00:00:00Z' }), 400, 'VALIDATION_ERROR');
    expectError(await exportCsv({ from: 'yesterday', to: '2026-11-01T00:00:00Z' }), 400, 'VALIDATION_ERROR');
    expectError(await exportCsv({ from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' }), 400, 'VALIDATION_ERROR');
    expectError(await exportCsv({ from: '2026-11-01T00:00:00Z', to: '2026-11-01T00:00:00Z' }), 400, 'VALIDATION_ERROR');
    const member = await t.memberKey(acc.id, ['messages:create']);
    expectError(
      await exportCsv({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }, member),
      403,
      'FORBIDDEN',
    );
    const reader = await t.memberKey(acc.id, ['messages:read']);
    const ok = await exportCsv({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }, reader);
    expect(ok.status).toBe(200);
    expect(parse(ok.text)).toHaveLength(1);
  });
});
