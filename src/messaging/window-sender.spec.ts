import { pipelineHarness, PipelineHarness, smsTo } from './testing/pipeline-harness';
import type { SendOutcome } from './send-outcome';
import { PacerStop, SendPacer, WindowItem, WindowSender } from './window-sender';
import { accountIdOf } from '../common/account-id';
import { query } from '../database/sql';

const go: SendPacer = { before: () => Promise.resolve(null), after: () => undefined };

/** A pacer that lets `n` calls start, then stops the window for `reason`. */
function stopAfter(n: number, reason: PacerStop): SendPacer {
  let left = n;
  return { before: () => Promise.resolve(left-- > 0 ? null : reason), after: () => undefined };
}

const kinds = (out: SendOutcome[]) =>
  out.map((o) => {
    if (o.kind === 'not_attempted') return `${o.reason}${o.paid ? ' (paid)' : ''}`;
    if (o.kind === 'failed') return `failed ${o.result.errorCode}${o.error ? ' (error)' : ''}`;
    return o.kind === 'sent' ? 'sent' : `elsewhere ${o.result.status}`;
  });

describe(WindowSender.name, () => {
  for (const lookup of [true, false]) {
    describe(lookup ? 'provider with lookup' : 'provider without lookup (hand-off marks)', () => {
      let h: PipelineHarness;
      /** How a message handed to the provider looks in the log (a provider without lookup gets the hand-off mark first). */
      const mark = lookup ? '' : ' handed-off';
      beforeAll(async () => {
        h = await pipelineHarness({ lookup });
      });
      afterAll(() => h.close());
      beforeEach(() => {
        h.provider.script = [];
      });

      const window = (acc: string, n: number, tag: string): WindowItem[] =>
        Array.from({ length: n }, (_, i) => ({
          msg: smsTo(`+96650100${String(i).padStart(4, '0')}`),
          origin: { bulkJobId: `job_${tag}`, rowIndex: i, messageId: `msg_${tag}_${acc}_${i}` },
        }));
      const statuses = async (acc: string, items: WindowItem[]) =>
        Promise.all(
          items.map(async (it) => {
            const m = await h.message(accountIdOf(acc), it.origin.messageId);
            return m ? `${m.status} ${Number(m.cost)}${m.handedOffAt === null ? '' : ' handed-off'}` : 'none';
          }),
        );

      it('a provider error in the middle fails that message (refunded); the later ones are not attempted, paid once and never failed, and the next window sends them without a second charge', async () => {
        const acc = await h.account({ wallet: 100 });
        const items = window(acc, 5, 'mid');
        const failedBefore = await h.counted('failed');
        h.provider.script = ['sent', 'sent', 'unavailable'];
        const first = await h.windows.sendWindow(acc, items, go);
        expect(kinds(first)).toEqual([
          'sent',
          'sent',
          'failed PROVIDER_UNAVAILABLE (error)',
          'provider_stopped (paid)',
          'provider_stopped (paid)',
        ]);
        expect(h.provider.calls.map((c) => c.messageId)).toEqual(
          expect.not.arrayContaining([items[3].origin.messageId, items[4].origin.messageId]),
        );
        expect(await statuses(acc, items)).toEqual([
          `sent 5${mark}`,
          `sent 5${mark}`,
          `failed 0${mark}`,
          'queued 5',
          'queued 5',
        ]);
        expect(await h.wallet(acc)).toBe(100 - 4 * 5);
        expect((await h.counted('failed')) - failedBefore).toBe(1);

        const calls = h.provider.calls.length;
        const second = await h.windows.sendWindow(acc, items, go);
        // The failed one reached the provider's door: with a hand-off mark it stays failed (it may
        // have been delivered); without one it is paid again and sent. The paid ones go out as paid.
        expect(kinds(second)).toEqual([
          'sent',
          'sent',
          lookup ? 'sent' : 'failed PROVIDER_UNAVAILABLE',
          'sent',
          'sent',
        ]);
        expect(h.provider.calls.slice(calls).map((c) => c.messageId)).toEqual(
          items.slice(lookup ? 2 : 3).map((it) => it.origin.messageId),
        );
        expect(await h.wallet(acc)).toBe(100 - (lookup ? 5 : 4) * 5);
        expect((await h.counted('failed')) - failedBefore).toBe(1);
      });

      it('insufficient balance in the middle: the rest is not attempted, unpaid and unrecorded', async () => {
        const acc = await h.account({ wallet: 10 });
        const items = window(acc, 4, 'poor');
        const out = await h.windows.sendWindow(acc, items, go);
        expect(kinds(out)).toEqual(['sent', 'sent', 'insufficient_balance', 'insufficient_balance']);
        expect(await statuses(acc, items)).toEqual([`sent 5${mark}`, `sent 5${mark}`, 'none', 'none']);
        expect(await h.wallet(acc)).toBe(0);
      });

      it("a rate limit is not an attempt: that message and the rest stay paid and open (hand-off mark taken back), with the provider's retry-after", async () => {
        const acc = await h.account({ wallet: 100 });
        const items = window(acc, 3, 'limited');
        h.provider.script = ['sent', 'rate_limited'];
        const out = await h.windows.sendWindow(acc, items, go);
        expect(kinds(out)).toEqual(['sent', 'rate_limited (paid)', 'provider_stopped (paid)']);
        expect(out[1]).toMatchObject({ retryAfterMs: 2000 });
        expect(await statuses(acc, items)).toEqual([`sent 5${mark}`, 'queued 5', 'queued 5']);
        expect(await h.wallet(acc)).toBe(85);
        const again = await h.windows.sendWindow(acc, items, go);
        expect(kinds(again)).toEqual(['sent', 'sent', 'sent']);
        expect(await h.wallet(acc)).toBe(85);
      });

      it('the pacer stops the window (shutdown, lost lease): the rest is not attempted and stays paid', async () => {
        const acc = await h.account({ wallet: 100 });
        for (const reason of ['shutting_down', 'lease_lost'] as const) {
          const items = window(acc, 3, reason);
          const out = await h.windows.sendWindow(acc, items, stopAfter(1, reason));
          expect(kinds(out)).toEqual(['sent', `${reason} (paid)`, `${reason} (paid)`]);
          expect(await statuses(acc, items)).toEqual([`sent 5${mark}`, 'queued 5', 'queued 5']);
        }
        expect(await h.wallet(acc)).toBe(70);
      });

      it('a rejection is per message: the window goes on', async () => {
        const acc = await h.account({ wallet: 100 });
        const items = window(acc, 3, 'rejected');
        h.provider.script = ['rejected'];
        const out = await h.windows.sendWindow(acc, items, go);
        expect(kinds(out)).toEqual(['failed PROVIDER_REJECTED', 'sent', 'sent']);
        expect(await h.wallet(acc)).toBe(90);
      });

      it('the statements of a window do not grow with its size, and each sent message is counted once', async () => {
        const acc = await h.account({ wallet: 1000 });
        const cost = async (n: number, tag: string) => {
          const before = h.uow.statements;
          const sentBefore = await h.counted('sent');
          await h.windows.sendWindow(acc, window(acc, n, tag), go);
          expect((await h.counted('sent')) - sentBefore).toBe(n);
          return h.uow.statements - before;
        };
        const small = await cost(2, 'small');
        const large = await cost(10, 'large');
        // One read of the log, the payment unit (balance read, debit, insert), one mark-sent; plus the
        // hand-off mark per message for a provider without lookup.
        expect(large - small).toBe(lookup ? 0 : 8);
      });

      it('a window records its history in one INSERT and its message.sent events in one record() call, each with its sequence', async () => {
        const acc = await h.account({ wallet: 1000 });
        const items = window(acc, 5, 'events');
        const before = h.events.length;
        await h.windows.sendWindow(acc, items, go);
        const calls = h.events.slice(before);
        expect(calls).toHaveLength(1);
        expect(calls[0].map((e) => [e.type, e.data.id, e.data.status, e.data.sequence])).toEqual(
          items.map((it) => ['message.sent', it.origin.messageId, 'sent', 2]),
        );
        const history = await h.uow.read(
          query((r) => [r.seq, r.status].map(String), {
            sql: 'SELECT message_id, seq, status FROM message_status_history WHERE message_id = ? ORDER BY seq',
            params: [items[4].origin.messageId],
          }),
        );
        expect(history).toEqual([
          ['1', 'queued'],
          ['2', 'sent'],
        ]);
      });
    });
  }
});
