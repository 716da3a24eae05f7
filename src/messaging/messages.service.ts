import type { SmsEncoding } from '../common/sms/sms-segments';
import { Inject, Injectable } from '@nestjs/common';
import { isLiveAccount } from '../accounts/account-mode';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { CursorCodec, Page } from '../common/cursor';
import { ApiError } from '../common/errors';
import { ListMessagesQuery } from './dto/messages.dto';
import { HistoryEntry, StatusTrail } from './lifecycle/status-trail';
import { MessageLogRepository } from './message-log.repository';
import { MessageView, toMessageView } from './message-view';
import { SEND_POLICY, type SendOrigin as PolicyOrigin, type SendPolicy } from './policy/send-policy';
import type { MessageFailureCode } from './send-outcome';
import { SendPipeline, SendResult } from './send-pipeline';
import { MessageValidator } from './validation/message-validator';
import { isObject } from './validation/recipient-rules';
import type { MessagePurpose, ValidatedMessage } from './validation/validated-message';
import type { AccountId } from '../common/account-id';

export const MAX_BATCH = 100;

/** The messages the send policy let through; `quiet`: the indexes it held for the sending hours. */
type Guarded = { msgs: ValidatedMessage[]; quiet: Set<number> };

export interface MessageDetailView extends MessageView {
  statusHistory: HistoryEntry[];
}

export interface SentMessageView {
  id: string;
  to: string;
  channel: string;
  purpose: MessagePurpose;
  status: SendResult['status'];
  cost: number;
  encoding: SmsEncoding | null;
  segments: number | null;
  scheduledAt?: string;
  /** `quiet_hours`: marketing outside the account's sending hours, scheduled for the window's next opening. */
  scheduledReason?: 'quiet_hours';
  errorCode?: MessageFailureCode;
  livemode: boolean;
}

/** POST /messages/send and the message log reads. */
@Injectable()
export class MessagesService {
  constructor(
    private readonly validator: MessageValidator,
    private readonly pipeline: SendPipeline,
    private readonly log: MessageLogRepository,
    private readonly cursors: CursorCodec,
    private readonly trail: StatusTrail,
    @Inject(SEND_POLICY) private readonly policy: SendPolicy,
  ) {}

  /**
   * One recipient, or a batch of up to 100 sharing one content. A batch is all-or-nothing up to the
   * provider: every recipient is validated, then all are paid (or 402), then each is sent.
   */
  async send(account: AccountEntity, body: unknown): Promise<SentMessageView[]> {
    if (!account.subscriptionActive)
      throw new ApiError('SUBSCRIPTION_INACTIVE', 'The account subscription is inactive');
    if (!isObject(body)) throw new ApiError('INVALID_REQUEST_BODY', 'Body must be a JSON object');
    const ctx = this.validator.createContext(account.id);
    if (!Array.isArray(body.to)) {
      const g = await this.guard(account.id, [await this.validator.validate(ctx, body)], 'single');
      return [this.view(account.id, await this.pipeline.send(account.id, g.msgs[0]), g.msgs[0], g.quiet.has(0))];
    }
    const recipients = body.to as unknown[];
    if (recipients.length === 0) throw ApiError.validation('to must not be an empty array');
    if (recipients.length > MAX_BATCH)
      throw ApiError.validation(`to may list at most ${MAX_BATCH} recipients, got ${recipients.length}`);
    const msgs: ValidatedMessage[] = [];
    for (let i = 0; i < recipients.length; i++) {
      try {
        msgs.push(await this.validator.validate(ctx, { ...body, to: recipients[i] }));
      } catch (err) {
        // Errors about the recipient name which one (the others are about the content all share).
        if (err instanceof ApiError && (err.code === 'INVALID_RECIPIENT' || err.code === 'DESTINATION_NOT_ALLOWED'))
          throw new ApiError(err.code, err.message.replace(/^to\b/, `to[${i}]`));
        throw err;
      }
    }
    if (msgs[0].chatId !== null)
      throw ApiError.validation('to must not be an array on chat channels (chatId is the recipient)');
    const guarded = await this.guard(account.id, msgs, 'batch');
    const outcomes = await this.pipeline.sendBatch(account.id, guarded.msgs);
    // Nothing reached a verdict (the provider failed on the first message): answer with that error.
    if (outcomes.every((o) => !o.ok)) {
      const first = outcomes[0];
      if (!first.ok) throw first.error;
    }
    return outcomes.map((o, i) => this.view(account.id, o.result, guarded.msgs[i], guarded.quiet.has(i)));
  }

  /**
   * The send policy, after validation and before payment: a refusal refuses the request (a batch names
   * the recipient); a hold (marketing outside the sending hours) schedules the message for `until`.
   */
  private async guard(accountId: AccountId, msgs: ValidatedMessage[], origin: PolicyOrigin): Promise<Guarded> {
    const decisions = await this.policy.decide(
      msgs.map((m) => ({
        accountId,
        channel: m.channel,
        recipient: m.to,
        purpose: m.purpose ?? 'transactional',
        senderName: m.sender,
        origin,
        at: m.scheduleAt ?? undefined,
      })),
    );
    const quiet = new Set<number>();
    const out = msgs.map((m, i) => {
      const d = decisions[i];
      if (d.kind === 'refuse') {
        const who = origin === 'batch' ? `to[${i}]` : 'to';
        throw new ApiError(d.code, `${who}: ${m.to.slice(0, 40)} ${d.why ?? 'has opted out of these messages'}`);
      }
      if (d.kind !== 'hold') return m;
      quiet.add(i);
      return { ...m, scheduleAt: d.until.getTime() };
    });
    return { msgs: out, quiet };
  }

  /** The message with its status history (read after the message, for the account that owns it). */
  async get(accountId: AccountId, id: string): Promise<MessageDetailView> {
    const m = await this.log.findOwned(accountId, id);
    if (!m) throw ApiError.notFound('Message');
    return { ...toMessageView(m), statusHistory: await this.trail.historyOf(m.id) };
  }

  async list(accountId: AccountId, q: ListMessagesQuery): Promise<Page<MessageView>> {
    const order = q.order ?? 'created';
    // A cursor of one order is refused by the other (its key differs: created_at or updated_at, and id).
    const scope = order === 'updated' ? `messages:${accountId}:updated` : `messages:${accountId}`;
    const after = this.cursors.decode<{ id: string; u?: number; c?: number }>(scope, q.cursor);
    if (after !== null && (typeof after.id !== 'string' || (order === 'updated' && typeof after.u !== 'number')))
      throw ApiError.validation('cursor is invalid');
    // A cursor from before the list was keyed by creation time holds the id alone: its message gives the time.
    if (after && order === 'created' && typeof after.c !== 'number') {
      const m = await this.log.findOwned(accountId, after.id);
      if (!m) throw ApiError.validation('cursor is invalid');
      after.c = Number(m.createdAt);
    }
    const limit = q.limit ?? 50;
    const updatedSince = q.updatedSince === undefined ? undefined : Date.parse(q.updatedSince);
    const rows = await this.log.list(accountId, {
      status: q.status,
      channel: q.channel,
      bulkJobId: q.bulkJobId,
      updatedSince,
      order,
      after: after ? { id: after.id, createdAt: after.c, updatedAt: after.u } : undefined,
      limit: limit + 1,
    });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = !hasMore
      ? null
      : order === 'updated'
        ? { id: last.id, u: Number(last.updatedAt) }
        : { id: last.id, c: Number(last.createdAt) };
    return { items: page.map(toMessageView), hasMore, nextCursor: next ? this.cursors.encode(scope, next) : null };
  }

  private view(accountId: AccountId, r: SendResult, msg: ValidatedMessage, quietHours: boolean): SentMessageView {
    const v: SentMessageView = {
      id: r.id,
      to: r.to,
      channel: r.channel,
      purpose: msg.purpose ?? 'transactional',
      status: r.status,
      cost: r.cost,
      encoding: r.encoding,
      segments: r.segments,
      livemode: isLiveAccount(accountId),
    };
    if (r.scheduledAt) v.scheduledAt = r.scheduledAt;
    if (r.scheduledAt && quietHours) v.scheduledReason = 'quiet_hours';
    if (r.errorCode) v.errorCode = r.errorCode;
    return v;
  }
}
