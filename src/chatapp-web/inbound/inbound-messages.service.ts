import { Inject, Injectable } from '@nestjs/common';
import { EVENT_SINK, EventSink } from '../../messaging/events/event-sink';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { iso } from '../../database/columns';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { InboundMessageEntity } from '../entities/inbound-message.entity';
import type { WebSessionEntity } from '../entities/web-session.entity';
import { phoneFromJid } from '../providers/waha.mapping';
import { isUniqueViolation } from '../../database/db-errors';
import { conversationKey } from '../web-session.types';
import { INBOUND_EVENT, InboundMessageInput, InboundResult } from './inbound.types';
import { UnitOfWork } from '../../database/unit-of-work';
import { INBOUND_KEYWORDS, type InboundKeywords } from '../../messaging/inbound/inbound-keywords';

/**
 * Turns a provider's inbound message into one `chatapp_web.message.received` delivery. Own and
 * history-sync messages are dropped; the inbound row (unique per session + remote message id) and the
 * outbox row are written in one transaction, so a repeated remote message id is delivered once.
 * Before that, a one-to-one text goes to INBOUND_KEYWORDS (channel chatapp_web, the sender's phone):
 * STOP from a contact opts that number out of the account's chatapp_web messages.
 */
@Injectable()
export class InboundMessagesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
    @Inject(EVENT_SINK) private readonly events: EventSink,
    @Inject(INBOUND_KEYWORDS) private readonly keywords: InboundKeywords,
  ) {}

  async receive(session: WebSessionEntity, input: InboundMessageInput): Promise<InboundResult> {
    const remoteMessageId = input.remoteMessageId ?? null;
    if (input.fromMe) return dropped('from_me', remoteMessageId);
    if (input.historySync) return dropped('history_sync', remoteMessageId);
    const now = this.clock.now();
    const messageId = remoteMessageId ?? newId('wmsg');
    const remoteChatId = input.remoteChatId ?? input.from.jid;
    const body = this.eventBody(session, input, { now, messageId, remoteChatId });
    const target = await this.webhooks.getChatappWebTarget(session.accountId);
    const rowId = newId('win');
    const given = input.from.phone ?? phoneFromJid(input.from.jid);
    const phone = given && /^\+?\d{6,15}$/.test(given) ? `+${given.replace(/^\+/, '')}` : null;
    const isGroup = input.isGroup ?? remoteChatId.endsWith('@g.us');
    // A repeated remote message id is dropped below; it must not opt in or out (or emit) twice either.
    const seen = async () =>
      this.uow.transaction((tx) =>
        tx.manager.exists(InboundMessageEntity, { where: { sessionId: session.id, remoteMessageId: messageId } }),
      );
    if (phone && !isGroup && input.text && !(await seen()))
      await this.keywords.handle({
        accountId: session.accountId,
        channel: 'chatapp_web',
        from: phone,
        to: session.name,
        text: input.text,
        inboundMessageId: rowId,
        at: now,
      });
    try {
      return await this.uow.transaction(async (tx) => {
        const em = tx.manager;
        const row: InboundMessageEntity = {
          id: rowId,
          accountId: session.accountId,
          sessionId: session.id,
          remoteMessageId: messageId,
          remoteChatId,
          status: target ? 'queued' : 'skipped',
          deliveryId: null,
          createdAt: now,
        };
        await em.insert(InboundMessageEntity, row);
        // Event endpoints get it too (Standard Webhooks body; `data` as in the spec's event).
        await this.events.record(tx, [
          { accountId: session.accountId, type: INBOUND_EVENT, data: body.data as Record<string, unknown>, at: now },
        ]);
        if (!target)
          return {
            accepted: true,
            dropped: null,
            status: 'skipped' as const,
            deliveryId: null,
            remoteMessageId: messageId,
          };
        const { deliveryId } = await this.webhooks.enqueue(em, {
          accountId: session.accountId,
          url: target.url,
          event: INBOUND_EVENT,
          body,
          sealedSecret: target.sealedSecret,
          apiKeyHeader: true,
        });
        await em.update(InboundMessageEntity, { id: row.id }, { deliveryId });
        return { accepted: true, dropped: null, status: 'queued' as const, deliveryId, remoteMessageId: messageId };
      });
    } catch (err) {
      if (isUniqueViolation(err)) return dropped('duplicate', messageId);
      throw err;
    }
  }

  /** The event body, exactly the spec's Events table; media is described, never attached. */
  private eventBody(
    session: WebSessionEntity,
    input: InboundMessageInput,
    ids: { now: number; messageId: string; remoteChatId: string },
  ): Record<string, unknown> {
    const media = input.media ?? null;
    return {
      event: INBOUND_EVENT,
      timestamp: iso(ids.now),
      data: {
        accountId: session.name,
        conversationKey: conversationKey(session.name, ids.remoteChatId),
        remoteChatId: ids.remoteChatId,
        remoteMessageId: ids.messageId,
        from: {
          jid: input.from.jid,
          phone: input.from.phone ?? phoneFromJid(input.from.jid),
          displayName: input.from.displayName,
        },
        isGroup: input.isGroup ?? ids.remoteChatId.endsWith('@g.us'),
        text: input.text,
        messageType: media ? media.mediaType : 'text',
        timestamp: iso(input.timestamp ?? ids.now),
        hasMedia: media !== null,
        mediaType: media?.mediaType ?? null,
        mimetype: media?.mimetype ?? null,
        fileName: media?.fileName ?? null,
      },
    };
  }
}

function dropped(reason: 'from_me' | 'history_sync' | 'duplicate', remoteMessageId: string | null): InboundResult {
  return { accepted: false, dropped: reason, status: null, deliveryId: null, remoteMessageId };
}
