import type { Registry } from 'prom-client';
import { decoders, query } from '../../src/database/sql';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { METRICS_REGISTRY } from '../../src/metrics/metrics-registry';
import { RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';
import { SandboxReceipts } from '../../src/providers/sandbox/sandbox-receipts';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { Scrape } from '../support/prometheus';

const PHONE = '+966501234567';

// The sandbox's receipt pass takes its due rows with a locking read in the unit that hands their
// receipts on and moves the rows along: two replicas' passes at the same moment each take a row at
// most once between them, and every message gets each receipt once.
describe('Sandbox receipts: passes of two replicas (e2e)', () => {
  const apps: TestApp[] = [];
  let t: TestApp;
  let acc: TestAccount;
  beforeAll(async () => {
    t = await createTestApp({ env: { SCHEDULERS_ENABLED: 'false' } });
    apps.push(t);
    acc = await t.createAccount({ walletBalance: 100_000, freeMessages: 0 });
  });
  afterAll(async () => {
    for (const a of apps.reverse()) await a.close({ keepDatabase: a !== t });
  });

  const sent = async (n: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send({ to: PHONE, channel: 'local_sms', messageType: 'free_text', content: { text: `r${i}` } });
      expect(res.status).toBe(201);
      ids.push(res.body.data.messages[0].id as string);
    }
    return ids;
  };
  const history = async (id: string) => {
    const res = await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key);
    expect(res.status).toBe(200);
    return res.body.data as { status: string; statusHistory: { status: string }[] };
  };
  /** Makes the messages' first receipt due now (it is due SANDBOX_DELIVERED_AFTER_MS after the send). */
  const makeDue = async (count: number) => {
    const changed = await t.app
      .get(UnitOfWork)
      .exec({ sql: 'UPDATE sandbox_deliveries SET receipt_due_at = 1 WHERE receipt_stage IS NOT NULL', params: [] });
    expect(changed).toBe(count);
  };

  it('two passes at once: each due row is taken by one of them, each message delivered once', async () => {
    // Two apps on one embedded database in one process would block each other's synchronous driver:
    // there the second pass is the same app's, whose concurrent units the gate serialises.
    const other = t.app.get(UnitOfWork).capabilities.concurrentWrites
      ? await createTestApp({ env: { SCHEDULERS_ENABLED: 'false' }, databaseUrl: t.databaseUrl })
      : t;
    if (other !== t) apps.push(other);
    for (let round = 0; round < 3; round++) {
      const ids = await sent(12);
      await makeDue(12);
      const [a, b] = await Promise.all([
        t.app.get(SandboxReceipts).runOnce(),
        other.app.get(SandboxReceipts).runOnce(),
      ]);
      expect(a + b).toBe(12);
      // Nothing is left due, and nothing leased for later: a third pass finds no work.
      expect(await t.app.get(SandboxReceipts).runOnce()).toBe(0);
      const [left] = await t.app.get(UnitOfWork).read(
        query(decoders.n, {
          sql: 'SELECT COUNT(*) AS n FROM sandbox_deliveries WHERE receipt_stage IS NOT NULL OR receipt_lease_owner IS NOT NULL',
          params: [],
        }),
      );
      expect(left).toBe(0);
      for (const id of [ids[0], ids[11]]) {
        const m = await history(id);
        expect(m.status).toBe('delivered');
        expect(m.statusHistory.map((h) => h.status)).toEqual(['queued', 'sent', 'delivered']);
      }
    }
  });

  /** messages_total{delivered} and receipts_total{delivered} of the local SMS sandbox, as a scrape reads them now. */
  const counted = async () => {
    const s = new Scrape(await t.app.get<Registry>(METRICS_REGISTRY).metrics());
    return {
      messages: s.value('messages_total', { channel: 'local_sms', status: 'delivered' }),
      receipts: s.value('receipts_total', { status: 'delivered' }),
    };
  };

  it('a pass that fails after applying its receipts rolls all of it back: the rows stay due, the next pass delivers them, counted once', async () => {
    const ids = await sent(3);
    const before = await counted();
    await makeDue(3);
    // The receipts are applied (inside the pass's unit), then the pass fails before moving its rows on.
    const intake = t.app.get<ReceiptIntake>(RECEIPT_INTAKE);
    const accept = intake.accept.bind(intake);
    const spy = jest.spyOn(intake, 'accept').mockImplementationOnce(async (receipts) => {
      await accept(receipts);
      throw new Error('crash after the receipts');
    });
    try {
      await expect(t.app.get(SandboxReceipts).runOnce()).rejects.toThrow('crash after the receipts');
    } finally {
      spy.mockRestore();
    }
    expect((await history(ids[0])).status).toBe('sent');
    // The rolled-back receipts were not counted (counters move after the commit only).
    expect(await counted()).toEqual(before);
    expect(await t.app.get(SandboxReceipts).runOnce()).toBe(3);
    for (const id of ids)
      expect((await history(id)).statusHistory.map((h) => h.status)).toEqual(['queued', 'sent', 'delivered']);
    expect(await counted()).toEqual({ messages: before.messages + 3, receipts: before.receipts + 3 });
  });

  it('a pass over more messages than one read of their refs takes (100) delivers every one', async () => {
    await sent(130);
    await makeDue(130);
    expect(await t.app.get(SandboxReceipts).runOnce()).toBe(130);
    const [r] = await t.app.get(UnitOfWork).read(
      query((row) => ({ n: Number(row.n), delivered: Number(row.d) }), {
        sql: "SELECT COUNT(*) AS n, SUM(CASE WHEN status = 'delivered' THEN 1 ELSE 0 END) AS d FROM messages WHERE account_id = ?",
        params: [acc.id],
      }),
    );
    expect(r.n).toBeGreaterThanOrEqual(130);
    expect(r.delivered).toBe(r.n);
  });
});
