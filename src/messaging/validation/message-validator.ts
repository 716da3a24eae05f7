import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, ChannelName, CHANNELS } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { TargetPolicy } from '../../common/net/target-policy';
import { smsSegments } from '../../common/sms/sms-segments';
import {
  COMPLIANCE_SETTINGS,
  type ComplianceSettingsLookup,
  GEO_PERMISSIONS,
  GeoPermissionsLookup,
  SENDER_LOOKUP,
  SenderLookup,
  SESSION_LOOKUP,
  SessionLookup,
  TEMPLATE_LOOKUP,
  TemplateLookup,
} from './lookups';
import { attachmentOf, fetchTarget } from './fetch-targets';
import { chatContext, checkDestination, hasCountries, recipientOf } from './recipient-checks';
import { fail, isObject, optionalString, parseSchedule, phoneOfChatId } from './recipient-rules';
import { marketingSmsText, purposeOf, requestedPurpose, smsSenderOf } from './sender-and-purpose';
import { resolveTemplate } from './template-rules';
import { MESSAGE_TYPES, MessageType, ValidatedMessage } from './validated-message';
import { memo, ValidationContext } from './validation-context';
import type { AccountId } from '../../common/account-id';

const FIELDS = new Set([
  'to',
  'channel',
  'messageType',
  'content',
  'sender',
  'template',
  'attachment',
  'chatId',
  'conversationContext',
  'scheduleAt',
  'purpose',
]);
const CHAT_CHANNELS: ReadonlySet<ChannelName> = new Set(['chatapp_web', 'messaging_bot']);
/** The session kind each chat channel sends through (a web session or a messaging-bot id). */
const SESSION_KIND: Partial<Record<ChannelName, string>> = { chatapp_web: 'web', messaging_bot: 'bot' };
const TEXT_MAX: Record<ChannelName, number> = {
  local_sms: 1600,
  chatapp: 4096,
  chatapp_web: 4096,
  messaging_bot: 4096,
  email: 100_000,
};

export interface ValidateOptions {
  bulkRow?: boolean;
}

/** The one validator of a recipient object (single send, batch recipients, bulk rows). */
@Injectable()
export class MessageValidator {
  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    @Inject(SENDER_LOOKUP) private readonly senders: SenderLookup,
    @Inject(TEMPLATE_LOOKUP) private readonly templates: TemplateLookup,
    @Inject(SESSION_LOOKUP) private readonly sessions: SessionLookup,
    @Inject(GEO_PERMISSIONS) private readonly geo: GeoPermissionsLookup,
    private readonly targets: TargetPolicy,
    @Inject(COMPLIANCE_SETTINGS) private readonly compliance: ComplianceSettingsLookup,
  ) {}

  createContext(accountId: AccountId): ValidationContext {
    return new ValidationContext(accountId);
  }

  async validate(ctx: ValidationContext, input: unknown, opts: ValidateOptions = {}): Promise<ValidatedMessage> {
    if (!isObject(input)) fail('VALIDATION_ERROR', 'message must be a JSON object');
    for (const key of Object.keys(input))
      if (!FIELDS.has(key)) fail('VALIDATION_ERROR', `${key} is not an allowed field`);
    const channel = this.channel(input.channel);
    const messageType = this.messageType(input.messageType);
    const isChat = CHAT_CHANNELS.has(channel);
    const chat = isChat ? chatContext(input, channel) : null;
    const { to, phone } = chat
      ? { to: chat.chatId, phone: phoneOfChatId(chat.chatId) }
      : recipientOf(ctx, input.to, channel, opts.bulkRow, this.config.messaging.defaultRegion);
    if (hasCountries(channel)) await checkDestination(this.geo, ctx, channel, chat ? 'chatId' : 'to', to, phone);

    let text: string | null = null;
    let subject: string | null = null;
    let html: string | null = null;
    let template: ValidatedMessage['template'] = null;
    let marketingTemplate: string | null = null;
    if (input.content !== undefined && input.content !== null && !isObject(input.content))
      fail('INVALID_CONTENT', 'content must be an object');
    const content = isObject(input.content) ? input.content : {};
    if (messageType === 'free_text') {
      text = optionalString(content, 'text', 'content.text', 'INVALID_CONTENT', TEXT_MAX[channel]);
      if (channel === 'email') {
        subject = optionalString(content, 'subject', 'content.subject', 'INVALID_CONTENT', 300);
        html = optionalString(content, 'html', 'content.html', 'INVALID_CONTENT', 500_000);
        if (!subject?.trim()) fail('INVALID_CONTENT', 'content.subject is required for email');
        if (!text?.trim() && !html?.trim())
          fail('INVALID_CONTENT', 'content.text or content.html is required for email');
      } else if (!text?.trim()) {
        fail('INVALID_CONTENT', 'content.text is required for free_text messages');
      }
    } else {
      if (!isObject(input.template)) fail('TEMPLATE_NOT_FOUND', 'template.id is required for template messages');
      if (typeof input.template.id !== 'string' || !input.template.id)
        fail('TEMPLATE_NOT_FOUND', 'template.id is required for template messages');
      const found = await memo(ctx.templates, input.template.id, () =>
        this.templates.findForSend(ctx.accountId, (input.template as { id: string }).id),
      );
      const rendered = resolveTemplate(found, input.template, channel);
      if (found?.subType === 'marketing') marketingTemplate = found.name;
      ({ text, subject, html } = rendered);
      template = rendered.template;
      // The provider fetches header media like an attachment: same target rules, normalised URL.
      if (template.headerMediaUrl)
        template.headerMediaUrl = await fetchTarget(
          this.targets,
          ctx,
          template.headerMediaUrl,
          'template.headerMediaUrl',
          'INVALID_ATTACHMENT',
        );
    }
    if (messageType === 'free_text' && input.template !== undefined && input.template !== null) {
      fail('INVALID_MESSAGE_TYPE', 'template is only allowed with messageType "template"');
    }

    const requested = requestedPurpose(input.purpose, marketingTemplate);
    const smsSender = await smsSenderOf(
      this.senders,
      this.config.messaging.defaultSmsSender,
      ctx,
      input.sender,
      channel,
      requested === 'transactional',
    );
    const purpose = purposeOf(requested, smsSender, marketingTemplate !== null);
    if (purpose === 'marketing' && channel === 'local_sms')
      text = await marketingSmsText(this.compliance, ctx, text ?? '');
    const attachment = await attachmentOf(this.targets, ctx, input.attachment, channel);
    if (chat) {
      const session = await memo(ctx.sessions, chat.session, () =>
        this.sessions.findForSend(ctx.accountId, chat.session),
      );
      if (session.kind !== SESSION_KIND[channel]) {
        const what =
          session.kind === 'bot' ? 'a messaging bot id (channel messaging_bot)' : 'a web session (channel chatapp_web)';
        fail(
          'VALIDATION_ERROR',
          `conversationContext.accountId: ${chat.session.slice(0, 100)} is ${what}, not usable on ${channel}`,
        );
      }
    }
    let scheduleAt: number | null = null;
    if (input.scheduleAt !== undefined && input.scheduleAt !== null) {
      if (opts.bulkRow) fail('INVALID_SCHEDULE', 'scheduleAt is not allowed in bulk messages');
      scheduleAt = parseSchedule(input.scheduleAt, this.clock.now());
    }
    const sms = channel === 'local_sms' ? smsSegments(text ?? '') : null;
    return {
      channel,
      messageType,
      to,
      sender: smsSender?.name ?? (input.sender as string | undefined) ?? null,
      purpose,
      text,
      subject,
      html,
      template,
      attachment,
      session: chat?.session ?? null,
      chatId: chat?.chatId ?? null,
      scheduleAt,
      price: this.config.billing.prices[channel] * (sms?.segments ?? 1),
      encoding: sms?.encoding ?? null,
      segments: sms?.segments ?? null,
    };
  }

  private channel(v: unknown): ChannelName {
    if (typeof v !== 'string' || !(CHANNELS as readonly string[]).includes(v))
      fail('INVALID_CHANNEL', `channel must be one of: ${CHANNELS.join(', ')}`);
    return v as ChannelName;
  }

  private messageType(v: unknown): MessageType {
    if (typeof v !== 'string' || !(MESSAGE_TYPES as readonly string[]).includes(v))
      fail('INVALID_MESSAGE_TYPE', `messageType must be one of: ${MESSAGE_TYPES.join(', ')}`);
    return v as MessageType;
  }
}
