import { Injectable } from '@nestjs/common';
import type { Funding } from '../accounts/funding';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { isUniqueViolation } from '../database/db-errors';
import { DeliveryStep } from './delivery-step';
import type { MessageEntity } from './entities/message.entity';
import { fundingOf, MessagePayments } from './message-payments';
import type { LogOrigin } from './log-origin';
import { MessageLogRepository } from './message-log.repository';
import { ErrorPolicy, OutcomeRecorder, resultOfRow } from './outcome-recorder';
import {
  Addressee,
  isProviderFailure,
  MessageFailureCode,
  ProviderFailure,
  SendOrigin,
  SendOutcome,
  SendResult,
  sendResult,
} from './send-outcome';
import type { ValidatedMessage } from './validation/validated-message';
import type { AccountId } from '../common/account-id';

export type { SendOrigin, SendResult } from './send-outcome';

/** A batch member's outcome: a result, or the provider error that stopped it (already refunded). */
export type BatchOutcome = { ok: true; result: SendResult } | { ok: false; error: ApiError; result: SendResult };

/** Why a message settled by reconcile() was not sent (its errorCode and errorMessage). */
export interface NotSent {
  code: MessageFailureCode;
  message: string;
}

const INTERRUPTED: NotSent = {
  code: 'PROVIDER_UNAVAILABLE',
  message: 'The send was interrupted before the provider answered',
};
const UNCONFIRMED =
  'The provider was called but its answer was lost (restart); it may have delivered the message, so it is not sent again automatically';

/**
 * The one send pipeline: pay and record (MessagePayments) -> provider (DeliveryStep) -> record the
 * outcome (OutcomeRecorder). Provider errors refund the payment and leave the message `failed` with
 * the error's code; a rejection is an outcome (`failed`, PROVIDER_REJECTED, refunded: only accepted
 * messages cost). Bulk windows go through WindowSender, which shares these steps.
 */
@Injectable()
export class SendPipeline {
  constructor(
    private readonly payments: MessagePayments,
    private readonly delivery: DeliveryStep,
    private readonly recorder: OutcomeRecorder,
    private readonly log: MessageLogRepository,
  ) {}

  async send(accountId: AccountId, msg: ValidatedMessage, origin: SendOrigin = {}): Promise<SendResult> {
    const id = origin.messageId ?? newId('msg');
    // A deterministic id seen before (bulk retry): continue from what the log says, before paying
    // (a message already sent must not need a balance to be reported).
    const seen = origin.messageId ? await this.log.findOwned(accountId, id) : null;
    if (seen) return settledResult(await this.resume(accountId, seen, msg, origin, 'throw'));
    let funding: Funding;
    try {
      funding = await this.payments.payOne(accountId, id, msg, origin);
    } catch (err) {
      if (!origin.messageId || !isUniqueViolation(err)) throw err;
      // Logged concurrently since the check above, or the id is another account's.
      const existing = await this.log.findOwned(accountId, id);
      if (!existing) throw new ApiError('CONFLICT', 'messageId belongs to another account');
      return settledResult(await this.resume(accountId, existing, msg, origin, 'throw'));
    }
    if (msg.scheduleAt !== null) return this.recorder.scheduled(accountId, id, msg, funding, msg.scheduleAt);
    return settledResult(await this.deliver(accountId, id, msg, funding, origin, 'throw'));
  }

  /**
   * Batch send (one content, many recipients): all paid up front, or 402 with nothing sent; then
   * delivered one by one. A provider error stops the rest of the batch: each later message is failed
   * with the same code and refunded (the request answers now, there is no later window).
   */
  async sendBatch(accountId: AccountId, msgs: ValidatedMessage[], origin: LogOrigin = {}): Promise<BatchOutcome[]> {
    if (!msgs.length) return [];
    const paid = await this.payments.payBatch(accountId, msgs, origin);
    const out: BatchOutcome[] = [];
    let stop: ProviderFailure | null = null;
    for (const { id, msg, funding } of paid) {
      if (msg.scheduleAt !== null) {
        out.push({ ok: true, result: this.recorder.scheduled(accountId, id, msg, funding, msg.scheduleAt) });
      } else if (stop) {
        out.push({
          ok: false,
          error: stop,
          result: (await this.recorder.fail(accountId, id, msg, funding, stop.code, stop.message)).result,
        });
      } else {
        try {
          out.push({
            ok: true,
            result: settledResult(await this.deliver(accountId, id, msg, funding, origin, 'throw')),
          });
        } catch (err) {
          if (!isProviderFailure(err)) throw err;
          stop = err;
          out.push({ ok: false, error: err, result: sendResult(id, msg, 'failed', 0, err.code, null) });
        }
      }
    }
    return out;
  }

  /** Sends a message already paid and recorded (scheduled send, unknown outcome after a crash). */
  async sendRecorded(row: MessageEntity, msg: ValidatedMessage, origin: LogOrigin = {}): Promise<SendResult> {
    return settledResult(await this.continueRecorded(row, msg, origin, 'throw'));
  }

  /**
   * A message left `queued` by a crashed request (no bulk job owns it), or by a bulk job cancelled
   * meanwhile: the earlier attempt's outcome if it may have reached the provider, otherwise `failed`
   * with `notSent`'s code and refunded. Never re-sent: its caller got no answer and may have retried.
   */
  async reconcile(row: MessageEntity, notSent: NotSent = INTERRUPTED): Promise<SendResult> {
    const to: Addressee = { to: row.recipient, channel: row.channel, encoding: row.encoding, segments: row.segments };
    // (A failed lookup fails and refunds it, and throws.)
    const prior = await this.prior(row, to, fundingOf(row), 'throw');
    if (prior) return settledResult(prior);
    // Only if still not handed off: a live send that got there first keeps the message open.
    return settledResult(
      await this.recorder.fail(row.accountId, row.id, to, fundingOf(row), notSent.code, notSent.message, {
        notHandedOff: true,
      }),
    );
  }

  /**
   * A message already in the log under a deterministic id, continued from what the log says: `sent`
   * and final failures are reported as they are; `queued` is settled (lookup, hand-off mark) or sent
   * without paying again; failed before reaching the provider (a batch stopped before it) is paid and
   * sent again. Failed after a hand-off (unconfirmed, timed out) may have been delivered, and a
   * rejection or a cancellation is final: kept as it is.
   */
  async resume(
    accountId: AccountId,
    row: MessageEntity,
    msg: ValidatedMessage,
    origin: SendOrigin,
    policy: ErrorPolicy,
  ): Promise<SendOutcome> {
    if (row.accountId !== accountId) throw new ApiError('CONFLICT', 'messageId belongs to another account');
    if (row.status === 'queued') return this.continueRecorded(row, msg, origin, policy);
    const handedOff = row.handedOffAt !== null && row.handedOffAt !== undefined;
    const final = row.errorCode === 'PROVIDER_REJECTED' || row.errorCode === 'CANCELLED';
    if (row.status === 'failed' && !final && row.refundedAt !== null && !handedOff) {
      const funding = await this.payments.payAgain(accountId, row, msg);
      return this.deliver(accountId, row.id, msg, funding, origin, policy);
    }
    const result = resultOfRow(row, msg);
    if (result.status === 'sent') return { kind: 'sent', result };
    if (result.status === 'failed') return { kind: 'failed', result, error: null };
    return { kind: 'settled_elsewhere', result };
  }

  /** A paid, recorded message: an earlier attempt that may have reached the provider is settled first, never sent blindly again. */
  private async continueRecorded(
    row: MessageEntity,
    msg: ValidatedMessage,
    origin: LogOrigin,
    policy: ErrorPolicy,
  ): Promise<SendOutcome> {
    const funding = fundingOf(row);
    if (row.attempts > 1 || row.status === 'queued') {
      const prior = await this.prior(row, msg, funding, policy);
      if (prior) return prior;
    }
    return this.deliver(row.accountId, row.id, msg, funding, origin, policy);
  }

  /**
   * The outcome of an earlier attempt, or null when sending is safe. A provider with `lookup` is
   * asked (a failed lookup fails the message, refunded, rather than risk a second delivery). Without
   * lookup, a message handed off before may have been delivered: it ends `failed` with
   * DELIVERY_UNCONFIRMED, refunded, and is not sent again automatically (a bulk retry-failed is the
   * caller's explicit choice).
   */
  private async prior(
    row: MessageEntity,
    to: Addressee,
    funding: Funding,
    policy: ErrorPolicy,
  ): Promise<SendOutcome | null> {
    const p = await this.delivery.prior(row);
    if (p.kind === 'unseen') return null;
    if (p.kind === 'handed_off')
      return this.recorder.fail(row.accountId, row.id, to, funding, 'DELIVERY_UNCONFIRMED', UNCONFIRMED);
    const outcome = await this.recorder.record(row.accountId, row.id, to, funding, p, policy);
    if (p.kind === 'error' && policy === 'throw') throw p.error;
    return outcome;
  }

  private async deliver(
    accountId: AccountId,
    id: string,
    msg: ValidatedMessage,
    funding: Funding,
    origin: LogOrigin,
    policy: ErrorPolicy,
  ): Promise<SendOutcome> {
    const d = await this.delivery.attempt(accountId, id, msg, origin);
    const outcome = await this.recorder.record(accountId, id, msg, funding, d, policy);
    // Single sends answer a provider error with the error itself (the message is failed and refunded).
    if (d.kind === 'error' && policy === 'throw') throw d.error;
    return outcome;
  }
}

/** The result of an outcome reached under the `throw` policy (never "not attempted"). */
function settledResult(o: SendOutcome): SendResult {
  if (o.kind === 'not_attempted') throw new Error(`a send under the throw policy was not attempted (${o.reason})`);
  return o.result;
}
