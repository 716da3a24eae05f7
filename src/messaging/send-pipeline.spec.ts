import { pipelineHarness, PipelineHarness, smsTo } from './testing/pipeline-harness';
import { SendPipeline } from './send-pipeline';

describe(SendPipeline.name, () => {
  describe('with a provider that can be asked about a message (lookup)', () => {
    let h: PipelineHarness;
    beforeAll(async () => {
      h = await pipelineHarness({ lookup: true });
    });
    afterAll(() => h.close());
    beforeEach(() => {
      h.provider.script = [];
    });

    it('send: pays, calls the provider once, records sent and counts it', async () => {
      const acc = await h.account({ wallet: 100 });
      const sentBefore = await h.counted('sent');
      const r = await h.pipeline.send(acc, smsTo('+966501111111'));
      expect(r).toEqual({
        id: expect.stringMatching(/^msg_/),
        to: '+966501111111',
        channel: 'local_sms',
        status: 'sent',
        cost: 5,
        errorCode: null,
        providerMessageId: `fake_${r.id}`,
        encoding: 'gsm7',
        segments: 1,
      });
      expect(await h.wallet(acc)).toBe(95);
      expect(await h.message(acc, r.id)).toMatchObject({
        status: 'sent',
        cost: 5,
        paidFrom: 'wallet',
        errorCode: null,
        refundedAt: null,
      });
      expect(h.provider.calls.filter((c) => c.messageId === r.id)).toHaveLength(1);
      expect((await h.counted('sent')) - sentBefore).toBe(1);
    });

    it('send: a rejection is an outcome, failed PROVIDER_REJECTED and refunded', async () => {
      const acc = await h.account({ wallet: 100 });
      h.provider.script = ['rejected'];
      const r = await h.pipeline.send(acc, smsTo('+966500000000'));
      expect(r).toMatchObject({ status: 'failed', cost: 0, errorCode: 'PROVIDER_REJECTED', providerMessageId: null });
      expect(await h.wallet(acc)).toBe(100);
      expect(await h.message(acc, r.id)).toMatchObject({
        status: 'failed',
        cost: 0,
        errorCode: 'PROVIDER_REJECTED',
        refundedAt: expect.any(Number),
      });
    });

    it('send: a provider error is thrown after the message is failed with its code and refunded, counted failed once', async () => {
      const acc = await h.account({ wallet: 100 });
      const failedBefore = await h.counted('failed');
      h.provider.script = ['unavailable'];
      const id = `msg_err_${acc}`;
      await expect(h.pipeline.send(acc, smsTo('+966501111112'), { messageId: id })).rejects.toMatchObject({
        code: 'PROVIDER_UNAVAILABLE',
        status: 503,
      });
      expect(await h.wallet(acc)).toBe(100);
      expect(await h.message(acc, id)).toMatchObject({
        status: 'failed',
        cost: 0,
        errorCode: 'PROVIDER_UNAVAILABLE',
        errorMessage: 'Provider unavailable: fake: down',
      });
      expect((await h.counted('failed')) - failedBefore).toBe(1);
    });

    it('send: INSUFFICIENT_BALANCE with nothing recorded and no provider call', async () => {
      const acc = await h.account({ wallet: 4 });
      const calls = h.provider.calls.length;
      await expect(
        h.pipeline.send(acc, smsTo('+966501111113'), { messageId: `msg_poor_${acc}` }),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 402 });
      expect(await h.message(acc, `msg_poor_${acc}`)).toBeNull();
      expect(h.provider.calls.length).toBe(calls);
      expect(await h.wallet(acc)).toBe(4);
    });

    it('sendBatch: all-or-nothing, 402 with nothing taken, nothing recorded, nothing sent', async () => {
      const acc = await h.account({ wallet: 14 });
      const calls = h.provider.calls.length;
      await expect(
        h.pipeline.sendBatch(acc, [smsTo('+966501000001'), smsTo('+966501000002'), smsTo('+966501000003')]),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      expect(await h.wallet(acc)).toBe(14);
      expect(await h.log.list(acc, { limit: 10 })).toEqual([]);
      expect(h.provider.calls.length).toBe(calls);
    });

    it('sendBatch: a provider error stops the batch; the later messages are failed with its code and refunded', async () => {
      const acc = await h.account({ wallet: 100 });
      h.provider.script = ['sent', 'failed'];
      const out = await h.pipeline.sendBatch(acc, [
        smsTo('+966501000011'),
        smsTo('+966501000012'),
        smsTo('+966501000013'),
      ]);
      expect(out.map((o) => [o.ok, o.result.status, o.result.errorCode, o.ok ? null : o.error.code])).toEqual([
        [true, 'sent', null, null],
        [false, 'failed', 'PROVIDER_ERROR', 'PROVIDER_ERROR'],
        [false, 'failed', 'PROVIDER_ERROR', 'PROVIDER_ERROR'],
      ]);
      expect(h.provider.took(out[2].result.id)).toBe(false);
      expect(await h.wallet(acc)).toBe(95);
      expect(await h.message(acc, out[2].result.id)).toMatchObject({
        status: 'failed',
        cost: 0,
        errorCode: 'PROVIDER_ERROR',
      });
    });

    describe('a deterministic id seen before', () => {
      it('sent stays sent: no provider call, no payment, even with an empty wallet', async () => {
        const acc = await h.account({ wallet: 5 });
        const id = `msg_seen_sent_${acc}`;
        const first = await h.pipeline.send(acc, smsTo('+966501000021'), { messageId: id });
        const calls = h.provider.calls.length;
        const again = await h.pipeline.send(acc, smsTo('+966501000021'), { messageId: id });
        expect(again).toEqual(first);
        expect(h.provider.calls.length).toBe(calls);
        expect(await h.wallet(acc)).toBe(0);
      });

      it('queued (a crash after payment) is settled through the lookup without a second charge: sent if the provider took it, else sent now', async () => {
        const acc = await h.account({ wallet: 100 });
        const taken = `msg_seen_taken_${acc}`;
        const lost = `msg_seen_lost_${acc}`;
        for (const id of [taken, lost])
          await h.windows.sendWindow(acc, [{ msg: smsTo('+966501000022'), origin: { messageId: id } }], stopAtOnce);
        expect(await h.wallet(acc)).toBe(90);
        // The provider took `taken` before the crash; `lost` never left.
        await h.provider.send({ messageId: taken, accountId: acc, channel: 'local_sms', to: '+966501000022' });
        const calls = h.provider.calls.length;
        expect(await h.pipeline.send(acc, smsTo('+966501000022'), { messageId: taken })).toMatchObject({
          status: 'sent',
          cost: 5,
          providerMessageId: `fake_${taken}`,
        });
        expect(h.provider.calls.length).toBe(calls);
        expect(await h.pipeline.send(acc, smsTo('+966501000022'), { messageId: lost })).toMatchObject({
          status: 'sent',
          cost: 5,
        });
        expect(h.provider.calls.length).toBe(calls + 1);
        expect(h.provider.lookups).toEqual(expect.arrayContaining([taken, lost]));
        expect(await h.wallet(acc)).toBe(90);
      });

      it('failed before it reached the provider (refunded) is paid again, once, and sent', async () => {
        const acc = await h.account({ wallet: 100 });
        const id = `msg_seen_failed_${acc}`;
        h.provider.script = ['unavailable'];
        await expect(h.pipeline.send(acc, smsTo('+966501000023'), { messageId: id })).rejects.toMatchObject({
          code: 'PROVIDER_UNAVAILABLE',
        });
        expect(await h.wallet(acc)).toBe(100);
        expect(await h.pipeline.send(acc, smsTo('+966501000023'), { messageId: id })).toMatchObject({
          id,
          status: 'sent',
          cost: 5,
        });
        expect(await h.wallet(acc)).toBe(95);
        expect(await h.pipeline.send(acc, smsTo('+966501000023'), { messageId: id })).toMatchObject({
          id,
          status: 'sent',
          cost: 5,
        });
        expect(await h.wallet(acc)).toBe(95);
      });

      it('a rejection is final: reported as it is, never paid or sent again', async () => {
        const acc = await h.account({ wallet: 100 });
        const id = `msg_seen_rejected_${acc}`;
        h.provider.script = ['rejected'];
        await h.pipeline.send(acc, smsTo('+966501000024'), { messageId: id });
        const calls = h.provider.calls.length;
        expect(await h.pipeline.send(acc, smsTo('+966501000024'), { messageId: id })).toMatchObject({
          status: 'failed',
          errorCode: 'PROVIDER_REJECTED',
          cost: 0,
        });
        expect(h.provider.calls.length).toBe(calls);
        expect(await h.wallet(acc)).toBe(100);
      });

      it("another account's id is a CONFLICT, nothing paid", async () => {
        const owner = await h.account({ wallet: 100 });
        const other = await h.account({ wallet: 100 });
        const id = `msg_seen_owned_${owner}`;
        await h.pipeline.send(owner, smsTo('+966501000025'), { messageId: id });
        await expect(h.pipeline.send(other, smsTo('+966501000025'), { messageId: id })).rejects.toMatchObject({
          code: 'CONFLICT',
        });
        expect(await h.wallet(other)).toBe(100);
      });
    });

    it('reconcile: a stale queued message the provider never saw is failed with the given code and refunded, counted once across two settlers', async () => {
      const acc = await h.account({ wallet: 100 });
      const id = `msg_stale_${acc}`;
      await h.windows.sendWindow(acc, [{ msg: smsTo('+966501000031'), origin: { messageId: id } }], stopAtOnce);
      const row = (await h.message(acc, id))!;
      const failedBefore = await h.counted('failed');
      const both = await Promise.all([h.pipeline.reconcile(row), h.pipeline.reconcile(row)]);
      expect(both.map((r) => [r.status, r.errorCode, r.cost])).toEqual([
        ['failed', 'PROVIDER_UNAVAILABLE', 0],
        ['failed', 'PROVIDER_UNAVAILABLE', 0],
      ]);
      expect((await h.counted('failed')) - failedBefore).toBe(1);
      expect(await h.wallet(acc)).toBe(100);
    });
  });

  describe('with a provider that cannot be asked afterwards (no lookup)', () => {
    let h: PipelineHarness;
    beforeAll(async () => {
      h = await pipelineHarness({ lookup: false });
    });
    afterAll(() => h.close());

    it('marks the message handed off before the call', async () => {
      const acc = await h.account({ wallet: 100 });
      const r = await h.pipeline.send(acc, smsTo('+966501000041'));
      expect(await h.message(acc, r.id)).toMatchObject({ status: 'sent', handedOffAt: h.clock.now() });
    });

    it('an unknown outcome after a hand-off ends DELIVERY_UNCONFIRMED, refunded, never sent again', async () => {
      const acc = await h.account({ wallet: 100 });
      const id = `msg_unconfirmed_${acc}`;
      await h.windows.sendWindow(acc, [{ msg: smsTo('+966501000042'), origin: { messageId: id } }], stopAtOnce);
      // The call went out, then the replica died before recording the answer.
      expect(await h.log.markHandedOff(acc, id, h.clock.now())).toBe(true);
      const calls = h.provider.calls.length;
      const r = await h.pipeline.sendRecorded((await h.message(acc, id))!, smsTo('+966501000042'));
      expect(r).toMatchObject({ id, status: 'failed', errorCode: 'DELIVERY_UNCONFIRMED', cost: 0 });
      expect(h.provider.calls.length).toBe(calls);
      expect(await h.wallet(acc)).toBe(100);
      // Kept as it is on a retry with the same id (it may have been delivered).
      expect(await h.pipeline.send(acc, smsTo('+966501000042'), { messageId: id })).toMatchObject({
        status: 'failed',
        errorCode: 'DELIVERY_UNCONFIRMED',
      });
      expect(h.provider.calls.length).toBe(calls);
    });

    it('a queued message never handed off is sent, paid once', async () => {
      const acc = await h.account({ wallet: 100 });
      const id = `msg_never_handed_${acc}`;
      await h.windows.sendWindow(acc, [{ msg: smsTo('+966501000043'), origin: { messageId: id } }], stopAtOnce);
      expect(await h.pipeline.send(acc, smsTo('+966501000043'), { messageId: id })).toMatchObject({
        status: 'sent',
        cost: 5,
      });
      expect(await h.wallet(acc)).toBe(95);
    });
  });
});

/** A pacer that lets no call start: the window pays and records its messages and sends none (a crash right after payment). */
const stopAtOnce = { before: () => Promise.resolve('shutting_down' as const), after: () => undefined };
