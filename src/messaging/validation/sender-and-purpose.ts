import type { ChannelName } from '../../config/app-config';
import type { ComplianceSettingsLookup, SenderLookup } from './lookups';
import { hasOptOut, hostAllowed, linkHosts, withFooter } from './marketing-rules';
import { fail } from './recipient-rules';
import { MESSAGE_PURPOSES, type MessagePurpose } from './validated-message';
import { memo, type SmsSender, type ValidationContext } from './validation-context';

// Who a message goes out from and what it is for, for MessageValidator: the SMS sender, the purpose
// (transactional or marketing) and the rules a marketing SMS's text must keep.

/**
 * The SMS sender (null on other channels, whose `sender` is passed on as given). Without a named
 * sender, the account's default; but a message said to be transactional (a verification code, say)
 * goes out from the platform's sender when that default is promotional (it sends marketing only).
 */
export async function smsSenderOf(
  senders: SenderLookup,
  platformSender: string,
  ctx: ValidationContext,
  v: unknown,
  channel: ChannelName,
  transactional: boolean,
): Promise<SmsSender | null> {
  if (v !== undefined && v !== null && (typeof v !== 'string' || !v.trim() || v.length > 100))
    fail('SENDER_NOT_APPROVED', 'sender must be a non-empty string');
  if (channel !== 'local_sms') return null;
  const platform: SmsSender = { name: platformSender, type: 'transactional' };
  if (typeof v !== 'string') {
    ctx.defaultSender ??= senders.findDefaultApproved(ctx.accountId).then((s) => s ?? platform);
    const found = await ctx.defaultSender;
    return transactional && found.type === 'promotional' ? platform : found;
  }
  if (v === platform.name) return platform;
  const found = await memo(ctx.senders, v, () => senders.findApprovedByName(ctx.accountId, v));
  if (!found) fail('SENDER_NOT_APPROVED', `sender "${v.slice(0, 40)}" is not an approved sender of this account`);
  return found;
}

/** The purpose the request gives (null: none); a marketing template's messages cannot be said transactional. */
export function requestedPurpose(v: unknown, marketingTemplate: string | null): MessagePurpose | null {
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
export function purposeOf(
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
export async function marketingSmsText(
  compliance: ComplianceSettingsLookup,
  ctx: ValidationContext,
  text: string,
): Promise<string> {
  if (!ctx.marketingRules) {
    const read = compliance.marketingRules(ctx.accountId);
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
