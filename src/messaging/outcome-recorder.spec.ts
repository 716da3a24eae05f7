import type { Funding } from '../accounts/funding';
import type { AccountId } from '../common/account-id';
import { ApiError } from '../common/errors';
import { query, sql } from '../database/sql';
import type { DeliveryResult } from './delivery-step';
import { OutcomeRecorder } from './outcome-recorder';
import type { ProviderFailure } from './send-outcome';
import { pipelineHarness, PipelineHarness, smsTo } from './testing/pipeline-harness';

describe(OutcomeRecorder.name, () => {
  let h: PipelineHarness;
  let sut: OutcomeRecorder;
  let n = 0;
  beforeAll(async () => {
    h = await pipelineHarness({ lookup: true });
    sut = h.recorder;
  });
  afterAll(() => h.close());
  afterEach(() => jest.restoreAllMocks());

  const to = smsTo('+966501234567');
  /** A message paid from the wallet (price 5) and logged `queued`, as the payment step leaves it. */
  async function paid(accountId: AccountId): Promise<{ id: string; funding: Funding }> {
    const id = `msg_rec_${++n}`;
    const [funding] = await h.payments.payWindow(accountId, [{ id, msg: to, origin: {} }]);
    expect(funding).toMatchObject({ source: 'wallet', amount: 5 });
    return { id, funding: funding! };
  }
  const answeredSent = (providerMessageId: string): DeliveryResult => ({
    kind: 'answered',
    outcome: { status: 'sent', providerMessageId },
  });
  const rejected: DeliveryResult = {
    kind: 'answered',
    outcome: { status: 'rejected', code: 'PROVIDER_REJECTED', message: 'no such number' },
  };
  const failure = (code: ProviderFailure['code'], message: string, retryAfterSeconds?: number): ProviderFailure =>
    new ApiError(code, message, retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) as ProviderFailure;
  const errored = (error: ProviderFailure, handedOff = false): DeliveryResult => ({ kind: 'error', error, handedOff });

  const state = async (accountId: AccountId, id: string) => {
    const m = await h.message(accountId, id);
    return m && { status: m.status, cost: Number(m.cost), errorCode: m.errorCode, sequence: Number(m.sequence) };
  };
  const history = async (id: string) =>
    h.uow.read(
      query(
        (r) => [r.status, r.error_code],
        sql('SELECT status, error_code FROM message_status_history WHERE message_id = ? ORDER BY seq', id),
      ),
    );
  const refs = async (id: string) =>
    h.uow.read(
      query(
        (r) => r.provider_message_id,
        sql('SELECT provider_message_id FROM message_provider_refs WHERE message_id = ?', id),
      ),
    );
  const eventsOf = (id: string) => h.events.flat().flatMap((e) => (e.data.id === id ? [e.type] : []));

  it('marks a message the provider took sent, with its history, provider ref, metric and event, exactly once', async () => {
    const acc = await h.account({ wallet: 100 });
    const { id, funding } = await paid(acc);
    const sentBefore = await h.counted('sent');
    h.clock.advance(1_000);
    const out = await sut.record(acc, id, to, funding, answeredSent('prov_1'), 'throw');
    expect(out).toEqual({
      kind: 'sent',
      result: expect.objectContaining({ id, status: 'sent', cost: 5, providerMessageId: 'prov_1', errorCode: null }),
    });
    expect(await h.message(acc, id)).toMatchObject({
      status: 'sent',
      providerMessageId: 'prov_1',
      sentAt: h.clock.now(),
    });
    // Recorded again (a replica that also heard the answer): the log's state, nothing written or counted twice.
    h.clock.advance(1_000);
    const again = await sut.record(acc, id, to, funding, answeredSent('prov_1'), 'throw');
    expect(again).toMatchObject({ kind: 'settled_elsewhere', result: { status: 'sent', providerMessageId: 'prov_1' } });
    expect(await state(acc, id)).toEqual({ status: 'sent', cost: 5, errorCode: null, sequence: 2 });
    expect(await history(id)).toEqual([
      ['queued', null],
      ['sent', null],
    ]);
    expect(await refs(id)).toEqual(['prov_1']);
    expect(eventsOf(id)).toEqual(['message.sent']);
    expect((await h.counted('sent')) - sentBefore).toBe(1);
    expect(await h.wallet(acc)).toBe(95);
  });

  it('fails a message the provider rejected and refunds it once: wallet back, failed with the error', async () => {
    const acc = await h.account({ wallet: 100 });
    const { id, funding } = await paid(acc);
    const failedBefore = await h.counted('failed');
    const out = await sut.record(acc, id, to, funding, rejected, 'report');
    expect(out).toEqual({
      kind: 'failed',
      error: null,
      result: expect.objectContaining({ id, status: 'failed', cost: 0, errorCode: 'PROVIDER_REJECTED' }),
    });
    expect(await h.wallet(acc)).toBe(100);
    expect(await h.message(acc, id)).toMatchObject({
      status: 'failed',
      cost: 0,
      errorCode: 'PROVIDER_REJECTED',
      errorMessage: 'no such number',
      refundedAt: h.clock.now(),
    });
    // The same answer recorded again refunds nothing more.
    expect(await sut.record(acc, id, to, funding, rejected, 'report')).toMatchObject({
      kind: 'settled_elsewhere',
      result: { status: 'failed', errorCode: 'PROVIDER_REJECTED' },
    });
    expect(await h.wallet(acc)).toBe(100);
    expect(await history(id)).toEqual([
      ['queued', null],
      ['failed', 'PROVIDER_REJECTED'],
    ]);
    expect(eventsOf(id)).toEqual(['message.failed']);
    expect((await h.counted('failed')) - failedBefore).toBe(1);
  });

  it('fails and refunds on a timeout or an unavailable provider under either policy, carrying the error', async () => {
    const acc = await h.account({ wallet: 100 });
    const timeout = failure('PROVIDER_UNAVAILABLE', 'Provider did not answer within 10000 ms');
    for (const policy of ['throw', 'report'] as const) {
      const { id, funding } = await paid(acc);
      const out = await sut.record(acc, id, to, funding, errored(timeout, true), policy);
      expect(out).toEqual({
        kind: 'failed',
        error: timeout,
        result: expect.objectContaining({ status: 'failed', cost: 0, errorCode: 'PROVIDER_UNAVAILABLE' }),
      });
      expect(await h.message(acc, id)).toMatchObject({ status: 'failed', errorMessage: timeout.message });
    }
    expect(await h.wallet(acc)).toBe(100);
  });

  it('keeps a rate-limited message of a bulk window paid and queued, its hand-off mark taken back; a single send fails it', async () => {
    const acc = await h.account({ wallet: 100 });
    const limited = failure('PROVIDER_RATE_LIMITED', 'slow down', 2);
    const open = await paid(acc);
    expect(await h.log.markHandedOff(acc, open.id, h.clock.now())).toBe(true);
    expect(await sut.record(acc, open.id, to, open.funding, errored(limited, true), 'report')).toEqual({
      kind: 'not_attempted',
      reason: 'rate_limited',
      paid: true,
      retryAfterMs: 2000,
    });
    expect(await h.message(acc, open.id)).toMatchObject({ status: 'queued', cost: 5, handedOffAt: null });
    expect(await history(open.id)).toEqual([['queued', null]]);
    expect(await h.wallet(acc)).toBe(95);
    // A single send (`throw`) has no next window: it fails and refunds.
    const single = await paid(acc);
    expect(await sut.record(acc, single.id, to, single.funding, errored(limited), 'throw')).toMatchObject({
      kind: 'failed',
      error: limited,
      result: { errorCode: 'PROVIDER_RATE_LIMITED' },
    });
    expect(await h.wallet(acc)).toBe(95);
  });

  it('answers the log when another sender settled the message first, and never pays back twice', async () => {
    const acc = await h.account({ wallet: 100 });
    // Failed (and refunded) elsewhere, then the provider's `sent` arrives here: not marked, not counted.
    const failedFirst = await paid(acc);
    await sut.fail(acc, failedFirst.id, to, failedFirst.funding, 'PROVIDER_ERROR', 'elsewhere');
    const sentBefore = await h.counted('sent');
    expect(await sut.record(acc, failedFirst.id, to, failedFirst.funding, answeredSent('prov_late'), 'report')).toEqual(
      {
        kind: 'settled_elsewhere',
        result: expect.objectContaining({
          status: 'failed',
          cost: 0,
          errorCode: 'PROVIDER_ERROR',
          providerMessageId: null,
        }),
      },
    );
    expect(await refs(failedFirst.id)).toEqual([]);
    expect(await h.counted('sent')).toBe(sentBefore);
    // Sent elsewhere, then a failure is recorded here: no refund, the send stands.
    const sentFirst = await paid(acc);
    await sut.sent(acc, { id: sentFirst.id, providerMessageId: 'prov_first' }, to, sentFirst.funding);
    expect(await sut.fail(acc, sentFirst.id, to, sentFirst.funding, 'PROVIDER_ERROR', 'late')).toMatchObject({
      kind: 'settled_elsewhere',
      result: { status: 'sent', cost: 5, providerMessageId: 'prov_first' },
    });
    // Two failures recorded at once: one refund.
    const raced = await paid(acc);
    const both = await Promise.all([
      sut.record(acc, raced.id, to, raced.funding, rejected, 'throw'),
      sut.record(acc, raced.id, to, raced.funding, rejected, 'throw'),
    ]);
    expect(both.map((o) => o.kind).sort()).toEqual(['failed', 'settled_elsewhere']);
    expect(await h.wallet(acc)).toBe(95);
    expect(await state(acc, sentFirst.id)).toMatchObject({ status: 'sent', cost: 5 });
    // A delivery that could not take the message (another sender holds it) reads the log, changing nothing.
    const held = await paid(acc);
    expect(await sut.record(acc, held.id, to, held.funding, { kind: 'taken' }, 'report')).toMatchObject({
      kind: 'settled_elsewhere',
      result: { status: 'queued', cost: 5 },
    });
    expect(await h.wallet(acc)).toBe(90);
  });

  it("marks bulk windows' sent messages of several accounts in one go, skipping those settled elsewhere", async () => {
    const [a, b] = [await h.account({ wallet: 100 }), await h.account({ wallet: 100 })];
    const [a1, a2, b1] = [await paid(a), await paid(a), await paid(b)];
    const gone = await paid(b);
    await sut.fail(b, gone.id, to, gone.funding, 'CANCELLED', 'job cancelled');
    const sentBefore = await h.counted('sent');
    const marks = jest.spyOn(h.log, 'markSent');
    h.clock.advance(500);
    await Promise.all([
      sut.sentMany(a, [
        { id: a1.id, providerMessageId: 'prov_a1' },
        { id: a2.id, providerMessageId: 'prov_a2', providerMessageIds: ['prov_a2_p1', 'prov_a2_p2'] },
      ]),
      sut.sentMany(b, [
        { id: b1.id, providerMessageId: 'prov_b1' },
        { id: gone.id, providerMessageId: 'prov_gone' },
      ]),
    ]);
    expect(marks).toHaveBeenCalledTimes(1);
    expect(marks.mock.calls[0][0].map((m) => m.id)).toEqual([a1.id, a2.id, b1.id, gone.id]);
    for (const [acc, m] of [
      [a, a1],
      [a, a2],
      [b, b1],
    ] as const) {
      expect(await h.message(acc, m.id)).toMatchObject({ status: 'sent', sentAt: h.clock.now() });
      expect(eventsOf(m.id)).toEqual(['message.sent']);
    }
    expect(await refs(a2.id)).toEqual(['prov_a2_p1', 'prov_a2_p2']);
    expect(await state(b, gone.id)).toMatchObject({ status: 'failed', errorCode: 'CANCELLED' });
    expect(await refs(gone.id)).toEqual([]);
    expect((await h.counted('sent')) - sentBefore).toBe(3);
  });
});
