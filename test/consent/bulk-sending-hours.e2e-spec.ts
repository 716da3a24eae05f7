import { Clock } from '../../src/common/clock';
import { BULK_TEST_ENV_PATIENT, deliveries, ds, getJob, phone, post, waitStatus } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { FOOTER_EN, marketingHelpers } from './marketing-helpers';

// Issue 28 item 6 in bulk: marketing rows wait for the window (rows `pending`, `quietUntil` on the
// job) while transactional rows keep going; once it opens they go, and the counters stay exact.
// The app's Clock reads a set instant plus the real time passed since (no sleeping on the window).

const OPENS = '2030-01-16T06:00:00.000Z'; // 09:00 in Riyadh

describe('Bulk jobs and sending hours (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let base = 0;
  let since = Date.now();
  const setTime = (at: number) => {
    base = at;
    since = Date.now();
  };
  const h = marketingHelpers(
    () => t,
    () => acc,
  );
  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV_PATIENT });
    t.app.get(Clock).now = () => base + (Date.now() - since);
  });
  afterAll(async () => {
    await t.close();
  });

  it('never sends a marketing row outside the window; transactional rows keep going; counters exact', async () => {
    setTime(Date.parse(OPENS) - 5 * 60_000); // 08:55 in Riyadh
    acc = await t.createAccount({ walletBalance: 100_000 });
    await h.sender('Promo-AD', 'promotional');
    await h.sender('Plain', 'transactional');
    const kinds = ['mk', 'tx', 'mk', 'tx', 'tx', 'mk', 'tx'];
    const to = kinds.map(() => phone());
    const messages = kinds.map((k, i) => ({
      to: to[i],
      channel: 'local_sms',
      messageType: 'free_text',
      content: { text: `${k} ${i}` },
      sender: k === 'mk' ? 'Promo-AD' : 'Plain',
    }));
    const res = await post(t, acc.key, { messagesPerSecond: 5, messages });
    expect(res.status).toBe(202);
    const id = res.body.id as string;

    const waiting = await waitFor(
      async () => {
        const job = await getJob(t, acc.key, id);
        return job.quietUntil ? job : null;
      },
      { timeoutMs: 20_000, what: 'the job waiting for sending hours' },
    );
    expect(waiting).toMatchObject({
      status: 'running',
      quietUntil: OPENS,
      counts: { pending: 3, sent: 4, failed: 0, cancelled: 0 },
    });
    const early = await deliveries(t, id);
    expect(early.map((d) => d.rowIndex).sort()).toEqual([1, 3, 4, 6]);
    const rows = await t.http().get(`/api/v2/messages/bulk/${id}/rows?status=pending`).set('X-API-Key', acc.key);
    expect(rows.body.data.rows.map((r: { index: number; status: string }) => [r.index, r.status])).toEqual([
      [0, 'pending'],
      [2, 'pending'],
      [5, 'pending'],
    ]);
    expect(await h.wallet()).toBe(100_000 - 4 * 5);

    // Parked: no replica leases it before the window opens.
    const [stored] = await ds(t).query('SELECT lease_owner, quiet_until FROM bulk_jobs WHERE id = ?', [id]);
    expect({ owner: stored.lease_owner, until: Number(stored.quiet_until) }).toEqual({
      owner: null,
      until: Date.parse(OPENS),
    });
    expect((await deliveries(t, id)).length).toBe(4);

    setTime(Date.parse(OPENS));
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done).toMatchObject({ quietUntil: null, counts: { pending: 0, sent: 7, failed: 0, cancelled: 0 } });
    const all = await deliveries(t, id);
    expect(all).toHaveLength(7);
    for (const d of all.filter((x) => kinds[x.rowIndex] === 'mk'))
      expect(Date.parse(d.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(OPENS));
    const texts = (await h.delivered(to[0])).map((d) => d.text);
    expect(texts).toEqual([`mk 0\n${FOOTER_EN}`]);
    expect(await h.wallet()).toBe(100_000 - 7 * 5);
  });
});
