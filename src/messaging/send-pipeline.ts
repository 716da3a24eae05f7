import { Injectable } from '@nestjs/common';
import { Funding, FundingSource, LedgerService } from '../accounts/ledger.service';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { iso } from '../database/columns';
import { isUniqueViolation } from '../database/db-errors';
import { UnitOfWork } from '../database/unit-of-work';
import { MetricsService } from '../metrics/metrics.service';
import { MessageEntity } from './entities/message.entity';
import { LogOrigin, MessageLog } from './message-log';
import { toApiError } from '../providers/provider-errors';
import { ProviderGateway, toOutbound } from './provider-gateway';
import type { ValidatedMessage } from './validation/validated-message';

export interface SendOrigin extends LogOrigin {
  /** Deterministic id (bulk row): a retried row reuses it, so the provider sees one reference. */
  messageId?: string;
}

export interface SendResult {
  id: string;
  to: string;
  channel: string;
  status: 'sent' | 'failed' | 'queued' | 'scheduled';
  /** Minor units taken from the wallet (0: free message, plan quota, or refunded). */
  cost: number;
  errorCode: string | null;
  providerMessageId: string | null;
  /** ISO 8601, scheduled messages only. */
  scheduledAt?: string;
}

const INTERRUPTED = { code: 'PROVIDER_UNAVAILABLE', message: 'The send was interrupted before the provider answered' };

/** A batch member's outcome: a result, or the provider error that stopped it (already refunded). */
export type BatchOutcome = { ok: true; result: SendResult } | { ok: false; error: ApiError; result: SendResult };

export interface ManyItem {
  msg: ValidatedMessage;
  origin?: SendOrigin;
}

/**
 * Optional pacing around each provider call of sendMany (bulk dispatch): `before` resolves when the
 * next call may start, `after` is told when it returned, so a caller can keep a per-second ceiling
 * per message while paying and recording the whole window in one transaction. An ApiError thrown by
 * `before` (the caller is shutting down) stops the rest of the window like a provider error: this
 * item and every later one are failed with it and refunded, never handed to the provider.
 */
export interface SendPacer {
  before(): Promise<void>;
  after(): void;
}

/** sendMany: a result, or the error this item would have thrown from send() (nothing kept paid). */
export type ManyOutcome = { ok: true; result: SendResult } | { ok: false; error: ApiError };

/**
 * The one send pipeline: debit atomically -> record (queued) -> provider -> record the outcome.
 * Provider errors refund the debit and leave the message `failed` with the error code; a provider
 * rejection is an outcome (`failed`, PROVIDER_REJECTED, refunded: only accepted messages cost).
 */
@Injectable()
export class SendPipeline {
  constructor(
    private readonly ledger: LedgerService,
    private readonly log: MessageLog,
    private readonly gateway: ProviderGateway,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly uow: UnitOfWork,
  ) {}

  async send(accountId: string, msg: ValidatedMessage, origin: SendOrigin = {}): Promise<SendResult> {
    const id = origin.messageId ?? newId('msg');
    // A deterministic id seen before (bulk retry): continue from what the log says, before paying
    // (a message already sent must not need a balance to be reported).
    const seen = origin.messageId ? await this.log.findById(id) : null;
    if (seen) return this.resume(accountId, seen, msg, origin);
    let funding: Funding;
    try {
      funding = await this.payAndRecord(accountId, id, msg, origin);
    } catch (err) {
      // (Logged concurrently since the check above.)
      const existing = origin.messageId && isUniqueViolation(err) ? await this.log.findById(id) : null;
      if (existing) return this.resume(accountId, existing, msg, origin);
      throw err;
    }
    if (msg.scheduleAt !== null) return this.counted(this.scheduledResult(id, msg, funding));
    return this.deliver(accountId, id, msg, funding, origin);
  }

  /** Debit and the `queued`/`scheduled` log row together, in one transaction (a failed insert takes nothing). */
  private async payAndRecord(accountId: string, id: string, msg: ValidatedMessage, origin: LogOrigin): Promise<Funding> {
    const status = msg.scheduleAt !== null ? ('scheduled' as const) : ('queued' as const);
    return this.uow.transaction(async () => {
      const funding = await this.ledger.debit(accountId, msg.channel);
      await this.log.insert([{ id, accountId, msg, funding, status, origin }], this.clock.now());
      return funding;
    });
  }

  /**
   * Batch send (one content, many recipients): all paid up front with at most three UPDATEs, or
   * 402 with nothing sent; then delivered one by one. A provider error stops the rest of the batch
   * (each later message is failed with the same code and refunded).
   */
  async sendBatch(accountId: string, msgs: ValidatedMessage[], origin: LogOrigin = {}): Promise<BatchOutcome[]> {
    if (!msgs.length) return [];
    const items = await this.uow.transaction(async () => {
      const fundings = await this.ledger.debitMany(accountId, msgs[0].channel, msgs.length, { allOrNothing: true });
      const paid = msgs.map((msg, i) => ({ id: newId('msg'), msg, funding: fundings[i] }));
      await this.record(accountId, paid, origin);
      return paid;
    });
    const out: BatchOutcome[] = [];
    let stop: ApiError | null = null;
    for (const { id, msg, funding } of items) {
      if (msg.scheduleAt !== null) {
        out.push({ ok: true, result: this.counted(this.scheduledResult(id, msg, funding)) });
      } else if (stop) {
        out.push({ ok: false, error: stop, result: await this.fail(accountId, id, msg, funding, stop) });
      } else {
        try {
          out.push({ ok: true, result: await this.deliver(accountId, id, msg, funding, origin) });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          stop = err;
          out.push({ ok: false, error: err, result: this.result(id, msg, 'failed', 0, err.code, null) });
        }
      }
    }
    return out;
  }

  /**
   * send() for many messages of one account with fewer commits (bulk dispatch): items whose
   * messageId is already logged continue from the log one by one (as send() does); the others are paid in order with one
   * debitMany per channel and recorded in one multi-row INSERT, in one transaction (items past what
   * the balance covers get INSUFFICIENT_BALANCE, unpaid and unrecorded); then sent in order, and
   * the sent ones marked in one transaction. A provider error fails that item and every later one
   * (refunded, logged failed with the code), exactly like a batch.
   */
  async sendMany(accountId: string, items: ManyItem[], pacer?: SendPacer): Promise<ManyOutcome[]> {
    const out: ManyOutcome[] = new Array(items.length);
    const ids = items.map((it) => it.origin?.messageId ?? newId('msg'));
    const known = await this.log.findByIds(items.flatMap((it) => (it.origin?.messageId ? [it.origin.messageId] : [])));
    const fresh: number[] = [];
    let halt: ApiError | null = null;
    for (let i = 0; i < items.length; i++) {
      const row = known.get(ids[i]);
      if (!row) fresh.push(i);
      else if ((halt ??= await paced(pacer))) out[i] = { ok: false, error: halt };
      else {
        out[i] = await this.resume(accountId, row, items[i].msg, items[i].origin ?? {}).then(
          (result) => ({ ok: true as const, result }),
          (err: unknown) => failure(err),
        );
        pacer?.after();
      }
    }
    if (halt) {
      for (const i of fresh) out[i] = { ok: false, error: halt };
      return out;
    }
    const paid = new Map<number, Funding>();
    try {
      await this.uow.transaction(async () => {
        for (const channel of new Set(fresh.map((i) => items[i].msg.channel))) {
          const group = fresh.filter((i) => items[i].msg.channel === channel);
          const fundings = await this.ledger.debitMany(accountId, channel, group.length, { allOrNothing: false });
          fundings.forEach((f, k) => paid.set(group[k], f));
        }
        const rows = [...paid].map(([i, funding]) => ({ id: ids[i], accountId, msg: items[i].msg, funding, origin: items[i].origin ?? {}, status: items[i].msg.scheduleAt !== null ? ('scheduled' as const) : ('queued' as const) }));
        await this.log.insert(rows, this.clock.now());
      });
    } catch (err) {
      for (const i of fresh) out[i] = failure(err);
      return out;
    }
    const sent: { id: string; providerMessageId: string; channel: string }[] = [];
    let stop: ApiError | null = null;
    // (If the pacer throws, e.g. the caller lost its lease, what was sent is still marked sent.)
    try {
      for (const i of fresh) {
        const { msg, origin = {} } = items[i];
        const funding = paid.get(i);
        if (!funding) {
          out[i] = { ok: false, error: new ApiError('INSUFFICIENT_BALANCE', 'Free messages, plan quota and wallet balance cannot pay for this message') };
        } else if (msg.scheduleAt !== null) {
          out[i] = { ok: true, result: this.counted(this.scheduledResult(ids[i], msg, funding)) };
        } else if (stop) {
          await this.fail(accountId, ids[i], msg, funding, stop);
          out[i] = { ok: false, error: stop };
        } else if ((stop = await paced(pacer))) {
          await this.fail(accountId, ids[i], msg, funding, stop);
          out[i] = { ok: false, error: stop };
        } else {
          try {
            const outcome = await this.handOff(ids[i], msg)
              .then((go) => (go ? this.gateway.send(toOutbound(ids[i], accountId, msg, origin)) : null))
              .finally(() => pacer?.after());
            if (outcome === null) {
              out[i] = { ok: true, result: await this.recorded(ids[i], msg) };
            } else if (outcome.status === 'sent') {
              sent.push({ id: ids[i], providerMessageId: outcome.providerMessageId, channel: msg.channel });
              out[i] = { ok: true, result: this.result(ids[i], msg, 'sent', funding.amount, null, outcome.providerMessageId) };
            } else {
              out[i] = { ok: true, result: await this.settle(accountId, ids[i], msg, funding, outcome) };
            }
          } catch (err) {
            stop = failure(err).error;
            await this.fail(accountId, ids[i], msg, funding, stop);
            out[i] = { ok: false, error: stop };
          }
        }
      }
    } finally {
      // One UPDATE per channel (a window usually has one), so each channel counts the rows it marked.
      for (const channel of new Set(sent.map((s) => s.channel))) {
        this.metrics.recordMessage(channel, 'sent', await this.log.markSentMany(sent.filter((s) => s.channel === channel), this.clock.now()));
      }
    }
    return out;
  }

  /** Sends a message already paid and recorded (scheduled send, unknown outcome after a crash). */
  async sendRecorded(row: MessageEntity, msg: ValidatedMessage, origin: LogOrigin = {}): Promise<SendResult> {
    const funding: Funding = { source: (row.paidFrom ?? 'wallet') as FundingSource, amount: Number(row.cost) };
    if (row.attempts > 1 || row.status === 'queued') {
      // A previous attempt may have reached the provider: settle it, never send blindly again.
      const prior = await this.priorOutcome(row, msg, funding);
      if (prior) return prior;
    }
    return this.deliver(row.accountId, row.id, msg, funding, origin);
  }

  /**
   * A message left `queued` by a crashed request (no bulk job owns it), or by a bulk job cancelled
   * meanwhile: the earlier attempt's outcome if it may have reached the provider, otherwise `failed`
   * with `notSent`'s code and refunded. Never re-sent: its caller got no answer and may have retried.
   */
  async reconcile(row: MessageEntity, notSent: { code: string; message: string } = INTERRUPTED): Promise<SendResult> {
    const funding: Funding = { source: (row.paidFrom ?? 'wallet') as FundingSource, amount: Number(row.cost) };
    const msg = { to: row.recipient, channel: row.channel } as ValidatedMessage;
    // (A failed lookup has already failed and refunded it, and throws.)
    const prior = await this.priorOutcome(row, msg, funding);
    if (prior) return prior;
    // Only if still not handed off: a live send that got there first keeps the message open.
    return this.fail(row.accountId, row.id, msg, funding, new ApiError('PROVIDER_UNAVAILABLE', notSent.message), notSent.code, { notHandedOff: true });
  }

  /**
   * The outcome of an earlier attempt that may have reached the provider (crash, lost lease), or
   * null when sending is safe. A provider with `lookup` is asked (a failed lookup fails the message,
   * refunded, rather than risk a second delivery). Without lookup, a message handed off before
   * (`handed_off_at`) may have been delivered: it ends `failed` with DELIVERY_UNCONFIRMED, refunded,
   * and is not sent again automatically (a bulk retry-failed is the caller's explicit choice).
   */
  private async priorOutcome(row: MessageEntity, msg: ValidatedMessage, funding: Funding): Promise<SendResult | null> {
    if (this.gateway.canLookup(msg.channel)) {
      let seen;
      try {
        seen = await this.gateway.lookup(msg.channel, row.id);
      } catch (err) {
        return this.failAndThrow(row.accountId, row.id, msg, funding, err);
      }
      return seen ? this.settle(row.accountId, row.id, msg, funding, seen) : null;
    }
    if (row.handedOffAt === null || row.handedOffAt === undefined) return null;
    const unconfirmed = new ApiError('PROVIDER_UNAVAILABLE', 'The provider was called but its answer was lost (restart); it may have delivered the message, so it is not sent again automatically');
    return this.fail(row.accountId, row.id, msg, funding, unconfirmed, 'DELIVERY_UNCONFIRMED');
  }

  /**
   * Before a provider call: may it go ahead? A provider that cannot be asked later needs the durable
   * hand-off mark first, set only on a still-open message that has none (compare-and-set); false: the
   * message was settled or handed off by someone else meanwhile (a stalled replica): do not call.
   */
  private async handOff(id: string, msg: ValidatedMessage): Promise<boolean> {
    if (this.gateway.canLookup(msg.channel)) return true;
    return this.log.markHandedOff(id, this.clock.now());
  }

  /** The message as the log has it now (after another replica settled or took it). */
  private async recorded(id: string, msg: ValidatedMessage): Promise<SendResult> {
    const row = await this.log.findById(id);
    if (!row) throw new Error(`message ${id} is not in the log`);
    return this.result(id, msg, row.status as SendResult['status'], Number(row.cost), row.errorCode, row.providerMessageId, row.scheduledAt);
  }

  private async resume(accountId: string, row: MessageEntity, msg: ValidatedMessage, origin: SendOrigin): Promise<SendResult> {
    if (row.accountId !== accountId) throw new ApiError('CONFLICT', 'messageId belongs to another account');
    if (row.status === 'queued') return this.sendRecorded(row, msg, origin);
    // Cancelled by its account while scheduled (refunded, final); reads as a failure with that code.
    if (row.status === 'cancelled') return this.result(row.id, msg, 'failed', 0, 'CANCELLED', null, row.scheduledAt);
    // Failed before reaching the provider (a batch stopped before it): paid and sent again. Failed
    // after a hand-off (unconfirmed, timed out) may have been delivered, and a rejection or a
    // cancellation is final: kept as it is.
    const handedOff = row.handedOffAt !== null && row.handedOffAt !== undefined;
    const final = row.errorCode === 'PROVIDER_REJECTED' || row.errorCode === 'CANCELLED';
    if (row.status === 'failed' && !final && row.refundedAt !== null && !handedOff) {
      // Paid and requeued together: a requeue that lost the race rolls the payment back.
      const funding = await this.uow.transaction(async () => {
        const paid = await this.ledger.debit(accountId, msg.channel);
        if (!(await this.log.requeue(row.id, paid, this.clock.now()))) throw new ApiError('CONFLICT', 'The message is being retried concurrently');
        return paid;
      });
      return this.deliver(accountId, row.id, msg, funding, origin);
    }
    return this.result(row.id, msg, row.status, Number(row.cost), row.errorCode, row.providerMessageId, row.scheduledAt);
  }

  private async deliver(accountId: string, id: string, msg: ValidatedMessage, funding: Funding, origin: LogOrigin): Promise<SendResult> {
    if (!(await this.handOff(id, msg))) return this.recorded(id, msg);
    let outcome;
    try {
      outcome = await this.gateway.send(toOutbound(id, accountId, msg, origin));
    } catch (err) {
      return this.failAndThrow(accountId, id, msg, funding, err);
    }
    return this.settle(accountId, id, msg, funding, outcome);
  }

  private async settle(accountId: string, id: string, msg: ValidatedMessage, funding: Funding, outcome: Awaited<ReturnType<ProviderGateway['send']>>): Promise<SendResult> {
    if (outcome.status === 'sent') {
      if (!(await this.log.markSent(id, outcome.providerMessageId, this.clock.now()))) return this.recorded(id, msg);
      return this.counted(this.result(id, msg, 'sent', funding.amount, null, outcome.providerMessageId));
    }
    return this.fail(accountId, id, msg, funding, new ApiError('PROVIDER_ERROR', outcome.message), outcome.code);
  }

  /** A provider call (or lookup) threw: the message is failed and refunded, and the error rethrown as an ApiError. */
  private async failAndThrow(accountId: string, id: string, msg: ValidatedMessage, funding: Funding, err: unknown): Promise<never> {
    const apiErr = toApiError(err);
    await this.fail(accountId, id, msg, funding, apiErr);
    throw apiErr;
  }

  /**
   * Marks the message failed and refunds it, once: a message already settled elsewhere is neither
   * refunded again nor reported failed (its recorded state is returned).
   */
  private async fail(accountId: string, id: string, msg: ValidatedMessage, funding: Funding, err: ApiError, code: string = err.code, opts: { notHandedOff?: boolean } = {}): Promise<SendResult> {
    const now = this.clock.now();
    const changed = await this.uow.transaction(async () => {
      const marked = await this.log.markFailed(id, code, err.message, now, opts);
      if (marked) await this.ledger.refundMany(accountId, [funding]);
      return marked;
    });
    return changed ? this.counted(this.result(id, msg, 'failed', 0, code, null)) : this.recorded(id, msg);
  }

  /**
   * Records a batch as one INSERT, in the caller's payment transaction. The queued ones are leased for
   * as long as the batch may take (one provider timeout each, plus a second), so the stale-send
   * reconciler leaves them to this request.
   */
  private async record(accountId: string, items: { id: string; msg: ValidatedMessage; funding: Funding }[], origin: LogOrigin): Promise<void> {
    const now = this.clock.now();
    const leaseUntil = now + items.length * (this.gateway.timeoutMs + 1000);
    const rows = items.map((it) => {
      const status = it.msg.scheduleAt !== null ? ('scheduled' as const) : ('queued' as const);
      return { ...it, accountId, origin, status, leaseUntil: status === 'queued' ? leaseUntil : undefined };
    });
    await this.log.insert(rows, now);
  }

  /**
   * messages_total: called exactly where this pipeline's own write moved the message into the
   * result's status and that write is committed (a conditional UPDATE that changed the row, or the
   * payment transaction of a scheduled message), so each move is counted once across replicas.
   */
  private counted(r: SendResult): SendResult {
    if (r.status !== 'queued') this.metrics.recordMessage(r.channel, r.status);
    return r;
  }

  private scheduledResult(id: string, msg: ValidatedMessage, funding: Funding): SendResult {
    return this.result(id, msg, 'scheduled', funding.amount, null, null, msg.scheduleAt);
  }

  private result(id: string, msg: ValidatedMessage, status: SendResult['status'], cost: number, errorCode: string | null, providerMessageId: string | null, scheduledAt?: number | null): SendResult {
    const r: SendResult = { id, to: msg.to, channel: msg.channel, status, cost, errorCode, providerMessageId };
    if (scheduledAt !== undefined && scheduledAt !== null) r.scheduledAt = iso(scheduledAt) as string;
    return r;
  }
}

/** Waits for the pacer; the ApiError it stops the window with, or null to go ahead. */
async function paced(pacer: SendPacer | undefined): Promise<ApiError | null> {
  try {
    await pacer?.before();
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

function failure(err: unknown): { ok: false; error: ApiError } {
  if (err instanceof ApiError) return { ok: false, error: err };
  throw err;
}
