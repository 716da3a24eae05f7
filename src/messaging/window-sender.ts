import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors';
import { DeliveryStep } from './delivery-step';
import { MessagePayments } from './message-payments';
import { MessageLogRepository, SentMark } from './message-log.repository';
import { OutcomeRecorder } from './outcome-recorder';
import { NotAttemptedReason, SendOrigin, SendOutcome, sendResult } from './send-outcome';
import { SendPipeline } from './send-pipeline';
import type { ValidatedMessage } from './validation/validated-message';
import type { AccountId } from '../common/account-id';

/** One message of a bulk window: sent now (never scheduled), under its deterministic id. */
export interface WindowItem {
  msg: ValidatedMessage;
  origin: SendOrigin & { messageId: string };
  /** The id was made for this window (never paid or recorded under it): no look-up in the log. */
  fresh?: boolean;
}

/** Why the pacer lets no more provider calls start in this window. */
export type PacerStop = Extract<NotAttemptedReason, 'shutting_down' | 'lease_lost'>;

/**
 * Pacing around each provider call of a window: `before` resolves when the next call may start
 * (null), or with the reason none may start any more; `after` is told when a call returned. So a
 * caller keeps a per-second ceiling per message while the window is paid and recorded in one unit.
 */
export interface SendPacer {
  before(): Promise<PacerStop | null>;
  after(): void;
  /** Calls of the window's new messages that may be in flight at once (1 when absent: one after another). */
  readonly lanes?: number;
  /** A start `before` granted is not used (the window stopped meanwhile). */
  cancel?(): void;
}

type Stop = { reason: NotAttemptedReason };

/**
 * send() for a bulk window of one account with fewer statements: items whose id is already in the
 * log continue from it one by one (as send() does); the others are paid in order with one debitMany
 * per channel and recorded in one INSERT (MessagePayments.payWindow), sent in order through the
 * pacer, and the sent ones marked in one UPDATE. A provider error fails that message (refunded), a
 * rate limit leaves it paid and open, and either stops the window: every later message is returned
 * `not_attempted` (paid ones stay paid and `queued`: the next window sends them without charging
 * again). Messages past the balance are `not_attempted`, unpaid and unrecorded.
 */
@Injectable()
export class WindowSender {
  constructor(
    private readonly pipeline: SendPipeline,
    private readonly payments: MessagePayments,
    private readonly delivery: DeliveryStep,
    private readonly recorder: OutcomeRecorder,
    private readonly log: MessageLogRepository,
  ) {}

  /** One outcome per item, in order. */
  async sendWindow(accountId: AccountId, items: WindowItem[], pacer: SendPacer): Promise<SendOutcome[]> {
    if (items.some((it) => it.msg.scheduleAt !== null))
      throw new Error('a bulk window sends now: scheduled messages go through SendPipeline.send');
    const out: SendOutcome[] = new Array(items.length);
    const known = await this.log.findOwnedMany(
      accountId,
      items.filter((it) => !it.fresh).map((it) => it.origin.messageId),
    );
    const fresh: number[] = [];
    let stop: Stop | null = null;
    for (let i = 0; i < items.length; i++) {
      const row = known.get(items[i].origin.messageId);
      if (!row) {
        fresh.push(i);
        continue;
      }
      stop ??= await paced(pacer);
      if (stop) {
        out[i] = notAttempted(stop, row.status === 'queued');
        continue;
      }
      out[i] = await this.pipeline
        .resume(accountId, row, items[i].msg, items[i].origin, 'report')
        .catch((err: unknown) => this.refused(accountId, items[i], err));
      pacer.after();
      stop = stopAfter(out[i]);
    }
    if (!fresh.length) return out;
    if (stop) return fill(out, fresh, notAttempted(stop, false));
    let fundings;
    try {
      fundings = await this.payments.payWindow(
        accountId,
        fresh.map((i) => ({ id: items[i].origin.messageId, msg: items[i].msg, origin: items[i].origin })),
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'SUBSCRIPTION_INACTIVE')
        return fill(out, fresh, notAttempted({ reason: 'insufficient_balance' }, false));
      throw err;
    }
    const sent: (SentMark & { channel: string })[] = [];
    const sendOne = async (k: number, i: number): Promise<void> => {
      const { msg, origin } = items[i];
      const funding = fundings[k];
      if (!funding) {
        out[i] = notAttempted({ reason: 'insufficient_balance' }, false);
        return;
      }
      if (!stop) {
        const refused = await paced(pacer);
        if (refused) stop ??= refused;
        // Stopped by another lane's outcome while this one waited: the start it was granted goes unused.
        else if (stop) pacer.cancel?.();
      }
      if (stop) {
        out[i] = notAttempted(stop, true);
        return;
      }
      const d = await this.delivery.attempt(accountId, origin.messageId, msg, origin).finally(() => pacer.after());
      if (d.kind === 'answered' && d.outcome.status === 'sent') {
        // Marked with the rest of the window below.
        sent.push({
          id: origin.messageId,
          providerMessageId: d.outcome.providerMessageId,
          providerMessageIds: d.outcome.providerMessageIds,
          channel: msg.channel,
        });
        out[i] = {
          kind: 'sent',
          result: sendResult(origin.messageId, msg, 'sent', funding.amount, null, d.outcome.providerMessageId),
        };
        return;
      }
      out[i] = await this.recorder.record(accountId, origin.messageId, msg, funding, d, 'report');
      stop ??= stopAfter(out[i]);
    };
    try {
      await inLanes(fresh, pacer.lanes ?? 1, sendOne);
    } finally {
      // (Also when a statement failed mid-window: what the provider took is marked sent.)
      await this.recorder.sentMany(accountId, sent);
    }
    return out;
  }

  /**
   * A logged message that resume() could not continue: paying it again failed for want of balance
   * (it stays failed and refunded: not attempted), or a concurrent retry requeued it first.
   */
  private async refused(accountId: AccountId, item: WindowItem, err: unknown): Promise<SendOutcome> {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'INSUFFICIENT_BALANCE' || err.code === 'SUBSCRIPTION_INACTIVE')
      return notAttempted({ reason: 'insufficient_balance' }, false);
    if (err.code === 'CONFLICT') return this.recorder.recorded(accountId, item.origin.messageId, item.msg);
    throw err;
  }
}

/** `work(k, list[k])` for every entry, started in order, at most `lanes` at once. */
async function inLanes(list: number[], lanes: number, work: (k: number, item: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < list.length) {
      const k = next++;
      await work(k, list[k]);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(lanes, list.length) }, lane));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function paced(pacer: SendPacer): Promise<Stop | null> {
  const reason = await pacer.before();
  return reason ? { reason } : null;
}

/** After a provider error (the message failed) or a rate limit (kept open), nothing more goes to the provider in this window. */
function stopAfter(o: SendOutcome): Stop | null {
  if (o.kind === 'failed' && o.error) return { reason: 'provider_stopped' };
  if (o.kind === 'not_attempted' && o.reason === 'rate_limited') return { reason: 'provider_stopped' };
  return null;
}

function notAttempted(stop: Stop, paid: boolean): SendOutcome {
  return { kind: 'not_attempted', reason: stop.reason, paid };
}

function fill(out: SendOutcome[], at: number[], o: SendOutcome): SendOutcome[] {
  for (const i of at) out[i] = o;
  return out;
}
