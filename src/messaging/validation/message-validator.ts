import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, ChannelName, CHANNELS } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { ErrorCode } from '../../common/errors';
import { refusedTargetText, TargetPolicy, TargetRefusedError } from '../../common/net/target-policy';
import { smsSegments } from '../../common/sms/sms-segments';
import {
  type ApprovedSender,
  COMPLIANCE_SETTINGS,
  type ComplianceSettingsLookup,
  type DestinationCountries,
  GEO_CHANNELS,
  type GeoChannel,
  GEO_PERMISSIONS,
  GeoPermissionsLookup,
  type MarketingRules,
  SENDER_LOOKUP,
  SenderLookup,
  SESSION_LOOKUP,
  SessionLookup,
  TEMPLATE_LOOKUP,
  type TemplateForSend,
  TemplateLookup,
} from './lookups';
import {
  fail,
  httpUrl,
  isObject,
  normaliseEmail,
  optionalString,
  parsePhone,
  type ParsedPhone,
  parseSchedule,
  phoneOfChatId,
} from './recipient-rules';
import { hasOptOut, hostAllowed, linkHosts, withFooter } from './marketing-rules';
import { resolveTemplate } from './template-rules';
import {
  MESSAGE_PURPOSES,
  MESSAGE_TYPES,
  type MessagePurpose,
  MessageType,
  ValidatedMessage,
} from './validated-message';
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
const CACHE_MAX = 100_000;
const GEO: ReadonlySet<string> = new Set(GEO_CHANNELS);
const hasCountries = (channel: ChannelName): channel is GeoChannel => GEO.has(channel);

/**
 * Per-account memo of everything a row needs from the database (sender, templates, sessions) and of
 * normalised recipients, so a bulk job validates thousands of rows per lookup. Short-lived: one per
 * request or per bulk validation run.
 */
export class ValidationContext {
  readonly senders = new Map<string, Promise<ApprovedSender | null>>();
  defaultSender: Promise<SmsSender> | null = null;
  /** The account's marketing rules (footer, link hosts, window), read once per context. */
  marketingRules: Promise<MarketingRules> | null = null;
  readonly templates = new Map<string, Promise<TemplateForSend | null>>();
  readonly sessions = new Map<string, Promise<{ name: string; status: string; kind: string }>>();
  readonly phones = new Map<string, ParsedPhone | null>();
  /** Geo permissions, read once per context (a bulk job of a million rows reads them once). */
  destinations: Promise<DestinationCountries> | null = null;
  /** SSRF verdict per host:port of attachment / header media URLs (true = allowed), so DNS runs once per host. */
  readonly targetHosts = new Map<string, Promise<boolean>>();
  constructor(readonly accountId: AccountId) {}
}

/** The SMS sender a message goes out from: the platform's default sender is transactional. */
type SmsSender = { name: string; type: ApprovedSender['type'] };

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
    const chat = isChat ? this.chatContext(input, channel) : null;
    const { to, phone } = chat
      ? { to: chat.chatId, phone: phoneOfChatId(chat.chatId) }
      : this.recipient(ctx, input.to, channel, opts);
    if (hasCountries(channel)) await this.destination(ctx, channel, chat ? 'chatId' : 'to', to, phone);

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
      const found = await this.memo(ctx.templates, input.template.id, () =>
        this.templates.findForSend(ctx.accountId, (input.template as { id: string }).id),
      );
      const rendered = resolveTemplate(found, input.template, channel);
      if (found?.subType === 'marketing') marketingTemplate = found.name;
      ({ text, subject, html } = rendered);
      template = rendered.template;
      // The provider fetches header media like an attachment: same target rules, normalised URL.
      if (template.headerMediaUrl)
        template.headerMediaUrl = await this.target(
          ctx,
          template.headerMediaUrl,
          'template.headerMediaUrl',
          'INVALID_ATTACHMENT',
        );
    }
    if (messageType === 'free_text' && input.template !== undefined && input.template !== null) {
      fail('INVALID_MESSAGE_TYPE', 'template is only allowed with messageType "template"');
    }

    const requested = this.requestedPurpose(input.purpose, marketingTemplate);
    const smsSender = await this.sender(ctx, input.sender, channel, requested === 'transactional');
    const purpose = this.purpose(requested, smsSender, marketingTemplate !== null);
    if (purpose === 'marketing' && channel === 'local_sms') text = await this.marketingSms(ctx, text ?? '');
    const attachment = await this.attachment(ctx, input.attachment, channel);
    if (chat) {
      const session = await this.memo(ctx.sessions, chat.session, () =>
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

  /** The normalised recipient (E.164 or lower-case email) and, for a phone, its country. */
  private recipient(
    ctx: ValidationContext,
    v: unknown,
    channel: ChannelName,
    opts: ValidateOptions,
  ): { to: string; phone: ParsedPhone | null } {
    if (Array.isArray(v))
      fail(
        'INVALID_RECIPIENT',
        opts.bulkRow ? 'to must be a single recipient in bulk messages' : 'to must be a single recipient here',
      );
    if (typeof v !== 'string' || !v.trim()) fail('INVALID_RECIPIENT', 'to is required');
    if (channel === 'email') {
      const email =
        normaliseEmail(v) ?? fail('INVALID_RECIPIENT', `to is not a valid email address: ${v.slice(0, 60)}`);
      return { to: email, phone: null };
    }
    let parsed = ctx.phones.get(v);
    if (parsed === undefined) {
      parsed = parsePhone(v, this.config.messaging.defaultRegion);
      if (ctx.phones.size < CACHE_MAX) ctx.phones.set(v, parsed);
    }
    if (parsed === null) fail('INVALID_RECIPIENT', `to is not a valid phone number: ${v.slice(0, 40)}`);
    return { to: parsed.e164, phone: parsed };
  }

  /**
   * Geo permissions: a phone recipient's country must be allowed for the channel. A chat id that is not
   * a phone number (a group) has no country and passes; a number of no country passes only `'*'`.
   */
  private async destination(
    ctx: ValidationContext,
    channel: GeoChannel,
    field: string,
    to: string,
    phone: ParsedPhone | null,
  ): Promise<void> {
    if (phone === null) return;
    if (!ctx.destinations) {
      const read = this.geo.allowedDestinations(ctx.accountId);
      // A failed read (database error) is not remembered.
      read.catch(() => {
        if (ctx.destinations === read) ctx.destinations = null;
      });
      ctx.destinations = read;
    }
    const allowed = (await ctx.destinations)[channel];
    if (allowed === '*' || (phone.country !== null && allowed.includes(phone.country))) return;
    const where = phone.country === null ? 'belongs to no country' : `is in ${phone.country}`;
    const may = allowed.length
      ? `may send ${channel} to ${allowed.join(', ')} only`
      : `may not send ${channel} to any country`;
    fail('DESTINATION_NOT_ALLOWED', `${field}: ${to.slice(0, 40)} ${where}; this account ${may} (geo permissions)`);
  }

  private chatContext(input: Record<string, unknown>, channel: ChannelName): { chatId: string; session: string } {
    const chatId = input.chatId;
    if (typeof chatId !== 'string' || !chatId.trim() || chatId.length > 200)
      fail('INVALID_RECIPIENT', `chatId is required for ${channel} (copy it from the chat list)`);
    const cc = input.conversationContext;
    if (!isObject(cc))
      fail('VALIDATION_ERROR', `conversationContext is required for ${channel} (copy it from the chat list)`);
    // The chat listing always says "chatapp_web" (spec), bot ids included; a bot send may also name its channel.
    const moduleTypes = channel === 'messaging_bot' ? ['chatapp_web', 'messaging_bot'] : ['chatapp_web'];
    if (!moduleTypes.includes(cc.moduleType as string))
      fail(
        'VALIDATION_ERROR',
        `conversationContext.moduleType must be ${moduleTypes.map((m) => `"${m}"`).join(' or ')}`,
      );
    if (typeof cc.accountId !== 'string' || !cc.accountId)
      fail('VALIDATION_ERROR', 'conversationContext.accountId is required');
    if (cc.chatId !== chatId) fail('VALIDATION_ERROR', 'conversationContext.chatId must equal chatId');
    if (input.to !== undefined && input.to !== null && input.to !== chatId)
      fail('INVALID_RECIPIENT', `to must be omitted or equal chatId on ${channel}`);
    return { chatId, session: cc.accountId };
  }

  /**
   * The SMS sender (null on other channels, whose `sender` is passed on as given). Without a named
   * sender, the account's default; but a message said to be transactional (a verification code, say)
   * goes out from the platform's sender when that default is promotional (it sends marketing only).
   */
  private async sender(
    ctx: ValidationContext,
    v: unknown,
    channel: ChannelName,
    transactional: boolean,
  ): Promise<SmsSender | null> {
    if (v !== undefined && v !== null && (typeof v !== 'string' || !v.trim() || v.length > 100))
      fail('SENDER_NOT_APPROVED', 'sender must be a non-empty string');
    if (channel !== 'local_sms') return null;
    const platform: SmsSender = { name: this.config.messaging.defaultSmsSender, type: 'transactional' };
    if (typeof v !== 'string') {
      ctx.defaultSender ??= this.senders.findDefaultApproved(ctx.accountId).then((s) => s ?? platform);
      const found = await ctx.defaultSender;
      return transactional && found.type === 'promotional' ? platform : found;
    }
    if (v === platform.name) return platform;
    const found = await this.memo(ctx.senders, v, () => this.senders.findApprovedByName(ctx.accountId, v));
    if (!found) fail('SENDER_NOT_APPROVED', `sender "${v.slice(0, 40)}" is not an approved sender of this account`);
    return found;
  }

  /** The purpose the request gives (null: none); a marketing template's messages cannot be said transactional. */
  private requestedPurpose(v: unknown, marketingTemplate: string | null): MessagePurpose | null {
    if (v === undefined || v === null) return null;
    if (!(MESSAGE_PURPOSES as readonly unknown[]).includes(v))
      fail('VALIDATION_ERROR', `purpose must be one of: ${MESSAGE_PURPOSES.join(', ')}`);
    if (v === 'transactional' && marketingTemplate !== null)
      fail(
        'VALIDATION_ERROR',
        `purpose: template "${marketingTemplate.slice(0, 100)}" is a marketing template (subType marketing): its messages are marketing`,
      );
    return v as MessagePurpose;
  }

  /**
   * What the message is for: as requested, else marketing when its template's subType is marketing or
   * it goes out from a promotional sender. A promotional sender sends marketing only, and marketing SMS
   * go out only from one (CST).
   */
  private purpose(
    requested: MessagePurpose | null,
    sender: SmsSender | null,
    marketingTemplate: boolean,
  ): MessagePurpose {
    const purpose = requested ?? (marketingTemplate || sender?.type === 'promotional' ? 'marketing' : 'transactional');
    if (sender && purpose === 'marketing' && sender.type !== 'promotional')
      fail(
        'SENDER_NOT_ALLOWED',
        `sender "${sender.name}" is not a promotional sender: marketing SMS go out only from a promotional (-AD) sender`,
      );
    if (sender && purpose !== 'marketing' && sender.type === 'promotional')
      fail('SENDER_NOT_ALLOWED', `sender "${sender.name}" is promotional: it sends marketing messages only`);
    return purpose;
  }

  /**
   * A marketing SMS's text: its links must point at the account's registered hosts, and it carries
   * opt-out instructions (the footer is appended when it has none), before its parts are counted and paid.
   */
  private async marketingSms(ctx: ValidationContext, text: string): Promise<string> {
    if (!ctx.marketingRules) {
      const read = this.compliance.marketingRules(ctx.accountId);
      read.catch(() => {
        if (ctx.marketingRules === read) ctx.marketingRules = null;
      });
      ctx.marketingRules = read;
    }
    const rules = await ctx.marketingRules;
    const foreign = linkHosts(text).find((h) => !hostAllowed(h, rules.allowedLinkDomains));
    if (foreign !== undefined)
      fail(
        'LINK_DOMAIN_NOT_ALLOWED',
        `content links to ${foreign.slice(0, 60)}, which is not among this account's allowedLinkDomains (GET /api/v2/account/compliance)`,
      );
    return hasOptOut(text, rules.footer) ? text : withFooter(text, rules.footer);
  }

  private async attachment(
    ctx: ValidationContext,
    v: unknown,
    channel: ChannelName,
  ): Promise<ValidatedMessage['attachment']> {
    if (v === undefined || v === null) return null;
    if (channel === 'local_sms') fail('INVALID_ATTACHMENT', 'attachment is not supported on local_sms');
    if (!isObject(v)) fail('INVALID_ATTACHMENT', 'attachment must be an object with url');
    // Providers (SMTP, bot API) fetch it from our server: the target rules of every server-side
    // fetch; adapters get the normalised URL, never the raw string.
    const url = await this.target(
      ctx,
      httpUrl(v.url, 'attachment.url', 'INVALID_ATTACHMENT'),
      'attachment.url',
      'INVALID_ATTACHMENT',
    );
    return {
      url,
      mimeType: optionalString(v, 'mimeType', 'attachment.mimeType', 'INVALID_ATTACHMENT', 200),
      fileName: optionalString(v, 'fileName', 'attachment.fileName', 'INVALID_ATTACHMENT', 255),
    };
  }

  /**
   * A URL the server or a provider will fetch: parsed and checked once (TargetPolicy), its host's
   * addresses checked once per context. Returns the normalised URL; one refusal text for every reason.
   */
  private async target(ctx: ValidationContext, raw: string, field: string, code: ErrorCode): Promise<string> {
    let url: URL;
    try {
      url = this.targets.parse(raw);
    } catch (err) {
      if (err instanceof TargetRefusedError) fail(code, refusedTargetText(field));
      throw err;
    }
    if (this.targets.rules.allowInsecure) return url.href;
    const allowed = await this.memo(ctx.targetHosts, url.host, () =>
      this.targets.pin(url).then(
        () => true,
        (err: unknown) => {
          if (err instanceof TargetRefusedError) return false;
          throw err;
        },
      ),
    );
    if (!allowed) fail(code, refusedTargetText(field));
    return url.href;
  }

  /** Remembers a lookup for the context's life; a failed lookup (database error) is not remembered. */
  private memo<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let p = cache.get(key);
    if (!p) {
      p = load();
      p.catch(() => cache.delete(key));
      if (cache.size < CACHE_MAX) cache.set(key, p);
    }
    return p;
  }
}
