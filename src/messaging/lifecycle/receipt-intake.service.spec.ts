import { Registry } from 'prom-client';
import { decoders, query, sql } from '../../database/sql';
import { MetricsService } from '../../metrics/metrics.service';
import type { ProviderReceipt, ReceiptStatus } from '../../providers/provider-events';
import { pipelineHarness, PipelineHarness, smsTo } from '../testing/pipeline-harness';
import { ReceiptIntakeService } from './receipt-intake.service';
import { ReceiptsRepository } from './receipts.repository';
import { StatusTrail } from './status-trail';
import type { AccountId } from '../../common/account-id';

describe(ReceiptIntakeService.name, () => {
  let h: PipelineHarness;
  let trail: StatusTrail;
  let sut: ReceiptIntakeService;
  let n = 0;

  beforeAll(async () => {
    // Messages are paid and sent by the real pipeline (whose recorder applies kept receipts through
    // its own intake on the same database); the intake under test is wired like the app's.
    h = await pipelineHarness({ lookup: false });
    trail = new StatusTrail(h.uow, {
      record: (_tx, evs) => {
        h.events.push([...evs]);
        return Promise.resolve();
      },
    });
    const metrics = new MetricsService(new Registry(), h.config);
    sut = new ReceiptIntakeService(h.uow, new ReceiptsRepository(h.uow), trail, h.clock, h.config, metrics);
  });
  afterAll(() => h.close());

  const receipt = (
    providerMessageId: string,
    status: ReceiptStatus,
    providerStatus: string = status,
  ): ProviderReceipt => ({
    providerMessageId,
    status,
    providerStatus,
    errorCode: status === 'failed' ? 'UNDELIVERED' : null,
    providerErrorCode: null,
    at: h.clock.now(),
  });
  const nextId = () => `msg_rcpt_${++n}`;
  /** A message sent by the pipeline under a known id: the fake provider names it `fake_<id>`. */
  async function sent(accountId: AccountId, id = nextId()): Promise<{ id: string; providerId: string }> {
    const r = await h.pipeline.send(accountId, smsTo('+966501234567'), { messageId: id });
    expect(r.status).toBe('sent');
    return { id, providerId: `fake_${id}` };
  }
  /** A message marked sent under a provider id of our choosing, without the recorder's look for kept receipts. */
  async function sentAs(accountId: AccountId, providerMessageId: string): Promise<string> {
    const id = nextId();
    const funding = { source: 'wallet' as const, amount: 5, units: 1 };
    await h.log.insert([{ id, accountId, msg: smsTo('+966501234567'), funding, status: 'queued', origin: {} }], 0);
    expect((await h.log.markSent([{ accountId, id, providerMessageId }], h.clock.now())).marked).toBe(1);
    return id;
  }
  const message = async (accountId: AccountId, id: string) => {
    const m = await h.message(accountId, id);
    return m && { status: m.status, sequence: Number(m.sequence), updatedAt: Number(m.updatedAt) };
  };
  const history = async (id: string) => (await trail.historyOf(id)).map((e) => [e.status, e.source, e.providerStatus]);
  const eventsOf = (id: string) =>
    h.events.flat().flatMap((e) => (e.data.id === id ? [[e.type, e.accountId, e.data.sequence]] : []));
  const kept = async (providerMessageId: string) =>
    (
      await h.uow.read(
        query(
          decoders.n,
          sql('SELECT COUNT(*) AS n FROM pending_receipts WHERE provider_message_id = ?', providerMessageId),
        ),
      )
    )[0];

  it('moves a known message forward through the one writer: status, sequence, history and events in its unit', async () => {
    const acc = await h.account();
    const m = await sent(acc);
    h.clock.advance(1_000);
    await sut.accept([receipt(m.providerId, 'delivered', 'DELIVRD')]);
    expect(await h.message(acc, m.id)).toMatchObject({ status: 'delivered', deliveredAt: h.clock.now(), sequence: 3 });
    h.clock.advance(1_000);
    await sut.accept([receipt(m.providerId, 'read', 'READ')]);
    expect(await h.message(acc, m.id)).toMatchObject({ status: 'read', readAt: h.clock.now(), sequence: 4 });
    expect(await history(m.id)).toEqual([
      ['queued', 'api', null],
      ['sent', 'api', null],
      ['delivered', 'provider', 'DELIVRD'],
      ['read', 'provider', 'READ'],
    ]);
    expect(eventsOf(m.id)).toEqual([
      ['message.sent', acc, 2],
      ['message.delivered', acc, 3],
      ['message.read', acc, 4],
    ]);
    // `read` straight from `sent` passes `delivered` too, one history row and event each.
    const other = await sent(acc);
    await sut.accept([receipt(other.providerId, 'read')]);
    expect(await history(other.id)).toEqual([
      ['queued', 'api', null],
      ['sent', 'api', null],
      ['delivered', 'provider', 'read'],
      ['read', 'provider', 'read'],
    ]);
    expect(eventsOf(other.id).slice(1)).toEqual([
      ['message.delivered', acc, 3],
      ['message.read', acc, 4],
    ]);
  });

  it('a duplicate or out-of-order receipt never moves a message back or writes anything', async () => {
    const acc = await h.account();
    const m = await sent(acc);
    // Two copies of one receipt in a batch move the message once.
    await sut.accept([receipt(m.providerId, 'read'), receipt(m.providerId, 'read')]);
    const before = await message(acc, m.id);
    expect(before).toMatchObject({ status: 'read', sequence: 4 });
    const events = eventsOf(m.id).length;
    h.clock.advance(5_000);
    await sut.accept([receipt(m.providerId, 'delivered')]);
    await sut.accept([receipt(m.providerId, 'sent'), receipt(m.providerId, 'read')]);
    // A failure is taken only from `sent`: after delivery a carrier's late UNDELIV changes nothing.
    await sut.accept([receipt(m.providerId, 'failed', 'UNDELIV')]);
    expect(await message(acc, m.id)).toEqual(before);
    expect((await history(m.id)).map(([s]) => s)).toEqual(['queued', 'sent', 'delivered', 'read']);
    expect(eventsOf(m.id)).toHaveLength(events);
  });

  it('keeps a receipt that comes before its provider id is known, and applies it when the message is marked sent', async () => {
    const acc = await h.account();
    const id = nextId();
    await sut.accept([receipt(`fake_${id}`, 'delivered', 'DELIVRD')]);
    expect(await kept(`fake_${id}`)).toBe(1);
    h.clock.advance(2_000);
    await sent(acc, id);
    expect(await message(acc, id)).toMatchObject({ status: 'delivered', sequence: 3 });
    expect(await history(id)).toEqual([
      ['queued', 'api', null],
      ['sent', 'api', null],
      ['delivered', 'provider', 'DELIVRD'],
    ]);
    expect(await kept(`fake_${id}`)).toBe(0);
    // The sweeper's pass applies one whose message was recorded without looking for it (a race).
    await sut.accept([receipt('prov_raced', 'delivered')]);
    const raced = await sentAs(acc, 'prov_raced');
    expect((await message(acc, raced))?.status).toBe('sent');
    expect(await sut.sweep(100)).toBe(1);
    expect((await message(acc, raced))?.status).toBe('delivered');
    expect(await kept('prov_raced')).toBe(0);
  });

  it('drops a kept receipt on the first sweep after RECEIPT_MATCH_WINDOW_MS (until then a send still applies it)', async () => {
    const acc = await h.account();
    const window = h.config.messaging.receiptMatchWindowMs;
    await sut.accept([receipt('prov_expired', 'delivered'), receipt('prov_late', 'delivered')]);
    // Kept through the whole window: it expires only once the clock is past it.
    h.clock.advance(window);
    expect(await sut.sweep(100)).toBe(0);
    expect(await kept('prov_expired')).toBe(1);
    // Past its window but not swept yet: a message recorded now still gets it.
    h.clock.advance(1);
    const late = await sentAs(acc, 'prov_late');
    await sut.applyPendingFor(['prov_late']);
    expect((await message(acc, late))?.status).toBe('delivered');
    // The sweep drops the other; a message recorded after that stays as it was sent.
    expect(await sut.sweep(100)).toBe(1);
    expect(await kept('prov_expired')).toBe(0);
    const expired = await sentAs(acc, 'prov_expired');
    await sut.applyPendingFor(['prov_expired']);
    expect(await message(acc, expired)).toMatchObject({ status: 'sent', sequence: 2 });
  });

  it("never touches another account's message", async () => {
    const [mine, theirs] = [await h.account(), await h.account()];
    const a = await sent(mine);
    const b = await sent(theirs);
    await sut.accept([receipt(a.providerId, 'read')]);
    expect((await message(mine, a.id))?.status).toBe('read');
    expect(await message(theirs, b.id)).toMatchObject({ status: 'sent', sequence: 2 });
    // The test-mode path names the message and its account: another account's id moves nothing.
    const status = {
      status: 'delivered' as const,
      providerStatus: 'DELIVRD',
      errorCode: null,
      providerErrorCode: null,
    };
    const byTheirs = { ...status, errorMessage: null, at: h.clock.now() };
    expect(await sut.acceptForMessage(mine, b.id, byTheirs)).toBe(false);
    expect(await message(theirs, b.id)).toMatchObject({ status: 'sent', sequence: 2 });
    expect(await sut.acceptForMessage(theirs, b.id, byTheirs)).toBe(true);
    // A provider id reused later by another account's message: the receipt is the newer message's.
    const old = await sentAs(mine, 'prov_reused');
    h.clock.advance(60_000);
    const newer = await sentAs(theirs, 'prov_reused');
    await sut.accept([receipt('prov_reused', 'delivered')]);
    expect((await message(theirs, newer))?.status).toBe('delivered');
    expect(await message(mine, old)).toMatchObject({ status: 'sent', sequence: 2 });
  });
});
