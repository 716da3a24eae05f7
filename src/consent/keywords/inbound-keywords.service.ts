import { Inject, Injectable, Logger } from '@nestjs/common';
import { UnitOfWork } from '../../database/unit-of-work';
import { EVENT_SINK, type EventSink } from '../../messaging/events/event-sink';
import type { InboundKeywords, InboundText, KeywordOutcome } from '../../messaging/inbound/inbound-keywords';
import { iso } from '../../database/columns';
import { SuppressionsService } from '../suppressions.service';
import { KeywordReplies } from './keyword-replies';
import { matchKeyword } from './keyword-matcher';
import { KeywordSettingsService } from './keyword-settings.service';

/**
 * The INBOUND_KEYWORDS port. A whole message that is an opt-out keyword gives the account a
 * suppression entry for the sender's number on that channel (scope `all`, reason `keyword`, source
 * the inbound message id) and emits `recipient.opted_out`; an opt-in keyword lifts the entries of
 * that channel and emits `recipient.opted_in`, both in one unit of work. HELP is answered with the
 * account's help text, and confirmations (when the account turned them on) are sent, as paid
 * transactional messages through the send pipeline (KeywordReplies); a reply that cannot be sent is
 * logged, never a reason to refuse the inbound message.
 */
@Injectable()
export class InboundKeywordsService implements InboundKeywords {
  private readonly logger = new Logger(InboundKeywordsService.name);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly suppressions: SuppressionsService,
    private readonly settings: KeywordSettingsService,
    private readonly replies: KeywordReplies,
    @Inject(EVENT_SINK) private readonly events: EventSink,
  ) {}

  async handle(t: InboundText): Promise<KeywordOutcome> {
    const settings = await this.settings.get(t.accountId);
    const k = matchKeyword(
      t.text,
      settings.extraKeywords.map((e) => ({ ...e, language: 'custom' as const })),
    );
    if (!k) return { keyword: null };
    const data = {
      recipient: t.from,
      channel: t.channel,
      keyword: k.word,
      inboundMessageId: t.inboundMessageId,
      to: t.to,
      at: iso(t.at) as string,
    };
    if (k.kind === 'opt_out' || k.kind === 'opt_in') {
      // Sent before the entry exists: the entry (scope all) would refuse the confirmation itself.
      if (k.kind === 'opt_out' && settings.confirmations.enabled)
        await this.replies.send(t, settings.confirmations.optOutText, k.language);
      await this.uow.transaction(async (tx) => {
        if (k.kind === 'opt_out')
          await this.suppressions.optOut({
            accountId: t.accountId,
            recipient: t.from,
            channel: t.channel,
            scope: 'all',
            reason: 'keyword',
            source: t.inboundMessageId,
          });
        else await this.suppressions.optIn({ accountId: t.accountId, recipient: t.from, channel: t.channel });
        const type = k.kind === 'opt_out' ? 'recipient.opted_out' : 'recipient.opted_in';
        await this.events.record(tx, [{ accountId: t.accountId, type, data, at: t.at }]);
      });
      if (k.kind === 'opt_in' && settings.confirmations.enabled)
        await this.replies.send(t, settings.confirmations.optInText, k.language);
    } else {
      await this.replies.send(t, settings.helpText, k.language);
    }
    this.logger.log(`keyword ${k.kind} "${k.word}" from ${t.from} to ${t.to} (account ${t.accountId})`);
    return { keyword: k.word, kind: k.kind, language: k.language };
  }
}
