// One section per real adapter. A section is read and checked only when its adapter is selected for
// a channel (null otherwise), so a stale setting of an unused adapter never blocks start-up, and a
// missing required one stops it naming the variable and what selected the adapter.
import type { EnvReader } from './env-reader';
import { providerVariable, type ProvidersConfig } from './providers.config';

export interface SmtpConfig {
  host: string;
  port: number;
  /** Implicit TLS (SMTPS); otherwise STARTTLS when offered. */
  secure: boolean;
  /** SMTP_USER + SMTP_PASS (set together), or null for no authentication. */
  auth: { user: string; pass: string } | null;
  /** SMTP_FROM: `addr` or `Name <addr>`. */
  from: string;
  /** The domain of the From address: our Message-IDs are `<id@domain>`. */
  fromDomain: string;
  maxConnections: number;
  requireTls: boolean;
  ignoreTls: boolean;
}

export interface SmppConfig {
  /** `smpp://host:port`, or `ssmpp://` for TLS. */
  url: string;
  systemId: string;
  password: string;
  systemType: string;
  /** How receipts write message ids (SMPP_RECEIPT_ID_FORMAT, see smpp-receipts.ts). */
  receiptIdFormat: 'as_submitted' | 'decimal';
  enquireLinkMs: number;
  reconnectMaxMs: number;
  /** Submissions awaiting their response at once. */
  window: number;
  /** A text longer than one SMS: `udh` splits it into parts with a concatenation header; `payload` sends it whole in message_payload. */
  longMessage: 'udh' | 'payload';
  /** GSM-7 text packed 8 septets into 7 octets; off: one septet per octet (data_coding 0, the SMSC packs). */
  gsm7Packing: boolean;
}

export interface CloudApiConfig {
  /** CHATAPP_CLOUD_BASE_URL without a trailing slash. */
  baseUrl: string;
  /** Graph API version, e.g. v21.0. */
  apiVersion: string;
  token: string;
  /** The platform number's phone-number id (messages go out from it). */
  phoneNumberId: string;
  /** The platform's business account: templates without an account sender's own one go there. */
  wabaId: string;
  /** The app whose resumable upload sessions carry template header media (the handle of `header_handle`). */
  appId: string;
}

export interface BotApiConfig {
  /** BOT_API_BASE_URL without a trailing slash. */
  baseUrl: string;
  token: string;
}

/** WAHA (web sessions): read whatever is selected, as a session may name `waha` itself when WAHA_BASE_URL is set. */
export interface WahaConfig {
  /** Without a trailing slash; null: WAHA is not available. */
  baseUrl: string | null;
  /** Sent as X-Api-Key. */
  apiKey: string | null;
  timeoutMs: number;
  /** A signed WAHA session.status stamped further than this from now is a replay and is ignored. */
  eventMaxAgeSeconds: number;
}

export type WebSessionProviderName = 'sandbox' | 'waha';

export interface WebSessionsConfig {
  /** Provider of sessions created without an explicit one. */
  defaultProvider: WebSessionProviderName;
}

/** Phone-number ids go into the request path: letters, digits, _ or - only. */
export const PHONE_NUMBER_ID = /^[A-Za-z0-9_-]+$/;
const HTTP = ['http', 'https'];

export function smtpSection(r: EnvReader, providers: ProvidersConfig): SmtpConfig | null {
  if (providers.byChannel.email !== 'smtp') return null;
  const why = `${providerVariable('email')}=smtp`;
  const host = r.required('SMTP_HOST', why);
  const secure = r.bool('SMTP_SECURE', false);
  const port = r.int('SMTP_PORT', secure ? 465 : 587, 1, 65535);
  const user = r.optional('SMTP_USER');
  const pass = r.optional('SMTP_PASS');
  if ((user === null) !== (pass === null)) r.fail('SMTP_USER and SMTP_PASS must be set together');
  const from = r.required('SMTP_FROM', why);
  const address = /<([^>]+)>\s*$/.exec(from)?.[1] ?? from;
  const fromDomain = /^[^@\s]+@([^@\s>]+)$/.exec(address.trim())?.[1] ?? '';
  if (from && !fromDomain) r.fail(`SMTP_FROM must be an email address or "Name <address>", got "${from}"`);
  return {
    host,
    port,
    secure,
    auth: user !== null && pass !== null ? { user, pass } : null,
    from,
    fromDomain,
    maxConnections: r.int('SMTP_MAX_CONNECTIONS', 5, 1, 100),
    requireTls: r.bool('SMTP_REQUIRE_TLS', false),
    ignoreTls: r.bool('SMTP_IGNORE_TLS', false),
  };
}

export function smppSection(r: EnvReader, providers: ProvidersConfig): SmppConfig | null {
  if (providers.byChannel.local_sms !== 'smpp') return null;
  const why = `${providerVariable('local_sms')}=smpp`;
  const url = r.required('SMPP_URL', why);
  return {
    url: url && r.url('SMPP_URL', url, ['smpp', 'ssmpp']),
    systemId: r.required('SMPP_SYSTEM_ID', why),
    password: r.required('SMPP_PASSWORD', why),
    systemType: r.string('SMPP_SYSTEM_TYPE', ''),
    receiptIdFormat: r.matching(
      'SMPP_RECEIPT_ID_FORMAT',
      r.string('SMPP_RECEIPT_ID_FORMAT', 'as_submitted'),
      /^(as_submitted|decimal)$/,
      'as_submitted or decimal',
    ) as 'as_submitted' | 'decimal',
    enquireLinkMs: r.int('SMPP_ENQUIRE_LINK_MS', 30000, 1000),
    reconnectMaxMs: r.int('SMPP_RECONNECT_MAX_MS', 30000, 100),
    window: r.int('SMPP_WINDOW', 10, 1, 1000),
    longMessage: r.oneOf('SMPP_LONG_MESSAGE', ['udh', 'payload'] as const, 'udh'),
    gsm7Packing: r.bool('SMPP_GSM7_PACKING', false),
  };
}

export function cloudApiSection(r: EnvReader, providers: ProvidersConfig): CloudApiConfig | null {
  if (providers.byChannel.chatapp !== 'cloud_api') return null;
  const why = `${providerVariable('chatapp')}=cloud_api`;
  const phoneNumberId = r.required('CHATAPP_CLOUD_PHONE_NUMBER_ID', why);
  const appId = r.required('CHATAPP_CLOUD_APP_ID', why);
  if (phoneNumberId && !PHONE_NUMBER_ID.test(phoneNumberId)) {
    r.fail(`CHATAPP_CLOUD_PHONE_NUMBER_ID must be a phone number id (letters, digits, _ or -), got "${phoneNumberId}"`);
  }
  return {
    baseUrl: r.url('CHATAPP_CLOUD_BASE_URL', r.string('CHATAPP_CLOUD_BASE_URL', 'https://graph.facebook.com'), HTTP),
    apiVersion: r.matching(
      'CHATAPP_CLOUD_API_VERSION',
      r.string('CHATAPP_CLOUD_API_VERSION', 'v21.0'),
      /^v\d+(\.\d+)?$/,
      'a Graph API version like v21.0',
    ),
    token: r.required('CHATAPP_CLOUD_TOKEN', why),
    phoneNumberId,
    wabaId: r.required('CHATAPP_CLOUD_WABA_ID', why),
    appId: appId && r.matching('CHATAPP_CLOUD_APP_ID', appId, PHONE_NUMBER_ID, 'an app id (letters, digits, _ or -)'),
  };
}

export function botApiSection(r: EnvReader, providers: ProvidersConfig): BotApiConfig | null {
  if (providers.byChannel.messaging_bot !== 'bot_api') return null;
  return {
    baseUrl: r.url('BOT_API_BASE_URL', r.string('BOT_API_BASE_URL', 'https://api.telegram.org'), HTTP),
    token: r.required('BOT_API_TOKEN', `${providerVariable('messaging_bot')}=bot_api`),
  };
}

export function webSessionsSection(r: EnvReader): WebSessionsConfig {
  return {
    defaultProvider: r.oneOf<WebSessionProviderName>('CHATAPP_WEB_SESSION_PROVIDER', ['sandbox', 'waha'], 'sandbox'),
  };
}

export function wahaSection(r: EnvReader, providers: ProvidersConfig, sessions: WebSessionsConfig): WahaConfig {
  const baseUrl = r.optional('WAHA_BASE_URL')?.replace(/\/+$/, '') || null;
  if (providers.byChannel.chatapp_web === 'waha' && !baseUrl)
    r.fail(`WAHA_BASE_URL is required when ${providerVariable('chatapp_web')}=waha`);
  else if (sessions.defaultProvider === 'waha' && !baseUrl)
    r.fail('WAHA_BASE_URL is required when CHATAPP_WEB_SESSION_PROVIDER=waha');
  if (baseUrl && !/^https?:\/\//.test(baseUrl)) r.fail('WAHA_BASE_URL must start with http:// or https://');
  return {
    baseUrl,
    apiKey: r.optional('WAHA_API_KEY'),
    timeoutMs: r.int('WAHA_TIMEOUT_MS', providers.timeoutMs, 1, 120_000),
    eventMaxAgeSeconds: r.int('WAHA_EVENT_MAX_AGE_SECONDS', 300, 1),
  };
}
