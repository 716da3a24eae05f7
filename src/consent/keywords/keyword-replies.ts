import { Injectable, Logger } from '@nestjs/common';
import type { InboundText } from '../../messaging/inbound/inbound-keywords';
import { SendPipeline } from '../../messaging/send-pipeline';
import { MessageValidator } from '../../messaging/validation/message-validator';
import type { KeywordLanguage } from './keyword-matcher';
import type { ReplyTexts } from './keyword-settings.types';

/**
 * Replies to keywords (HELP, confirmations): an ordinary transactional message from the account to
 * the number that wrote, from the sender name it wrote to, validated, priced, paid and sent by the
 * one send pipeline like any other. Arabic keywords are answered in Arabic, the others in English.
 * A reply that is refused (no balance, the sender not usable...) is logged and dropped: the inbound
 * message and its opt-out stand.
 */
@Injectable()
export class KeywordReplies {
  private readonly logger = new Logger(KeywordReplies.name);

  constructor(
    private readonly validator: MessageValidator,
    private readonly pipeline: SendPipeline,
  ) {}

  async send(t: InboundText, texts: ReplyTexts, language: KeywordLanguage): Promise<void> {
    const text = language === 'ar' ? texts.ar : texts.en;
    try {
      const msg = await this.validator.validate(this.validator.createContext(t.accountId), {
        to: t.from,
        channel: t.channel,
        messageType: 'free_text',
        ...(t.channel === 'local_sms' ? { sender: t.to } : {}),
        content: { text },
      });
      const sent = await this.pipeline.send(t.accountId, msg);
      this.logger.log(`keyword reply ${sent.id} to ${t.from}: ${sent.status}`);
    } catch (err) {
      this.logger.warn(`keyword reply to ${t.from} (account ${t.accountId}) not sent: ${(err as Error).message}`);
    }
  }
}
