import type { ChannelName } from '../../config/app-config';
import { GEO_CHANNELS, type GeoChannel, type GeoPermissionsLookup } from './lookups';
import { fail, isObject, normaliseEmail, parsePhone, type ParsedPhone } from './recipient-rules';
import { CACHE_MAX, type ValidationContext } from './validation-context';

// Who a message goes to, for MessageValidator: the normalised recipient or the chat, and the
// account's geo permissions for it (read once per validation context).

const GEO: ReadonlySet<string> = new Set(GEO_CHANNELS);
export const hasCountries = (channel: ChannelName): channel is GeoChannel => GEO.has(channel);

/** The normalised recipient (E.164 or lower-case email) and, for a phone, its country. */
export function recipientOf(
  ctx: ValidationContext,
  v: unknown,
  channel: ChannelName,
  bulkRow: boolean | undefined,
  defaultRegion: string,
): { to: string; phone: ParsedPhone | null } {
  if (Array.isArray(v))
    fail(
      'INVALID_RECIPIENT',
      bulkRow ? 'to must be a single recipient in bulk messages' : 'to must be a single recipient here',
    );
  if (typeof v !== 'string' || !v.trim()) fail('INVALID_RECIPIENT', 'to is required');
  if (channel === 'email') {
    const email = normaliseEmail(v) ?? fail('INVALID_RECIPIENT', `to is not a valid email address: ${v.slice(0, 60)}`);
    return { to: email, phone: null };
  }
  let parsed = ctx.phones.get(v);
  if (parsed === undefined) {
    parsed = parsePhone(v, defaultRegion);
    if (ctx.phones.size < CACHE_MAX) ctx.phones.set(v, parsed);
  }
  if (parsed === null) fail('INVALID_RECIPIENT', `to is not a valid phone number: ${v.slice(0, 40)}`);
  return { to: parsed.e164, phone: parsed };
}

/**
 * Geo permissions: a phone recipient's country must be allowed for the channel. A chat id that is not
 * a phone number (a group) has no country and passes; a number of no country passes only `'*'`.
 */
export async function checkDestination(
  geo: GeoPermissionsLookup,
  ctx: ValidationContext,
  channel: GeoChannel,
  field: string,
  to: string,
  phone: ParsedPhone | null,
): Promise<void> {
  if (phone === null) return;
  if (!ctx.destinations) {
    const read = geo.allowedDestinations(ctx.accountId);
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

/** The chat a chat-channel message goes to: its chat id and the session (web session or bot id) it goes through. */
export function chatContext(input: Record<string, unknown>, channel: ChannelName): { chatId: string; session: string } {
  const chatId = input.chatId;
  if (typeof chatId !== 'string' || !chatId.trim() || chatId.length > 200)
    fail('INVALID_RECIPIENT', `chatId is required for ${channel} (copy it from the chat list)`);
  const cc = input.conversationContext;
  if (!isObject(cc))
    fail('VALIDATION_ERROR', `conversationContext is required for ${channel} (copy it from the chat list)`);
  // The chat listing always says "chatapp_web" (spec), bot ids included; a bot send may also name its channel.
  const moduleTypes = channel === 'messaging_bot' ? ['chatapp_web', 'messaging_bot'] : ['chatapp_web'];
  if (!moduleTypes.includes(cc.moduleType as string))
    fail('VALIDATION_ERROR', `conversationContext.moduleType must be ${moduleTypes.map((m) => `"${m}"`).join(' or ')}`);
  if (typeof cc.accountId !== 'string' || !cc.accountId)
    fail('VALIDATION_ERROR', 'conversationContext.accountId is required');
  if (cc.chatId !== chatId) fail('VALIDATION_ERROR', 'conversationContext.chatId must equal chatId');
  if (input.to !== undefined && input.to !== null && input.to !== chatId)
    fail('INVALID_RECIPIENT', `to must be omitted or equal chatId on ${channel}`);
  return { chatId, session: cc.accountId };
}
