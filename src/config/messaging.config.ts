import type { EnvReader } from './env-reader';
import type { ChannelName } from './providers.config';

export interface BillingConfig {
  /** Account currency (upper case); amounts are integer minor units. */
  currency: string;
  /** Price per message in minor units, per channel. */
  prices: Record<ChannelName, number>;
}

export interface MessagingConfig {
  /** Region for parsing national phone numbers (two upper-case letters). */
  defaultRegion: string;
  /** The platform's SMS sender name: used when a message names none and the account has no default. */
  defaultSmsSender: string;
  /** A receipt for a provider id no message is recorded with yet is kept this long (RECEIPT_MATCH_WINDOW_MS). */
  receiptMatchWindowMs: number;
  /** How often a replica applies kept receipts whose message was recorded since, and drops expired ones. */
  receiptSweepTickMs: number;
}

export interface ScheduledSendsConfig {
  tickMs: number;
  batch: number;
  /** A claim's lease: the provider timeout plus SCHEDULED_SEND_LEASE_MS. */
  leaseMs: number;
}

export interface VerificationConfig {
  maxChecks: number;
  /** A verification is kept this long past its expiry. */
  retentionMs: number;
  purgeTickMs: number;
  /** Sends per recipient per window. */
  sendLimit: number;
  sendWindowMs: number;
}

export interface WebhooksConfig {
  deliveryIntervalMs: number;
  timeoutMs: number;
  /** A claimed delivery's lease: longer than a call, so a live sender never loses it. */
  leaseMs: number;
  /** Claimed per tick; also the cap on concurrent sends per replica. */
  batch: number;
  /** First retry delay; later retries wait longer, with jitter. */
  retryBaseMs: number;
  /** Finished deliveries are kept this long. */
  retentionMs: number;
  pruneIntervalMs: number;
  /** Event endpoints: the wait before each attempt (the first is usually 0); its length is the attempt count. */
  endpointRetryScheduleMs: number[];
  /** An event endpoint is disabled after this many deliveries in a row failed. */
  disableAfterFailures: number;
}

/** Standard Webhooks' schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
const ENDPOINT_RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

const HOUR_MS = 3_600_000;

export function billingSection(r: EnvReader): BillingConfig {
  return {
    currency: r.string('CURRENCY', 'SAR').toUpperCase(),
    prices: {
      local_sms: r.int('PRICE_LOCAL_SMS', 5, 0),
      chatapp: r.int('PRICE_CHATAPP', 10, 0),
      chatapp_web: r.int('PRICE_CHATAPP_WEB', 3, 0),
      messaging_bot: r.int('PRICE_MESSAGING_BOT', 2, 0),
      email: r.int('PRICE_EMAIL', 1, 0),
    },
  };
}

export function messagingSection(r: EnvReader): MessagingConfig {
  const defaultRegion = r.string('DEFAULT_REGION', 'SA').toUpperCase();
  if (!/^[A-Z]{2}$/.test(defaultRegion)) r.fail('DEFAULT_REGION must be a two-letter country code');
  return {
    defaultRegion,
    defaultSmsSender: r.string('DEFAULT_SMS_SENDER', 'MsgService'),
    receiptMatchWindowMs: r.int('RECEIPT_MATCH_WINDOW_MS', 600_000, 1000),
    receiptSweepTickMs: r.int('RECEIPT_SWEEP_TICK_MS', 5000, 10, 3_600_000),
  };
}

export function scheduledSendsSection(r: EnvReader, providerTimeoutMs: number): ScheduledSendsConfig {
  return {
    tickMs: r.int('SCHEDULED_SEND_TICK_MS', 1000, 10, 3_600_000),
    batch: r.int('SCHEDULED_SEND_BATCH', 50, 1, 1000),
    leaseMs: providerTimeoutMs + r.int('SCHEDULED_SEND_LEASE_MS', 30_000, 100),
  };
}

export function verificationSection(r: EnvReader): VerificationConfig {
  return {
    maxChecks: r.int('VERIFICATION_MAX_CHECKS', 5, 1, 100),
    retentionMs: r.int('VERIFICATION_RETENTION_HOURS', 24, 0, 24 * 365) * HOUR_MS,
    purgeTickMs: r.int('VERIFICATION_PURGE_TICK_MS', HOUR_MS, 1000, 86_400_000),
    sendLimit: r.int('VERIFICATION_SEND_LIMIT', 5, 1, 1_000_000),
    sendWindowMs: r.int('VERIFICATION_SEND_WINDOW_SECONDS', 600, 1, 7 * 86_400) * 1000,
  };
}

export function webhooksSection(r: EnvReader): WebhooksConfig {
  const timeoutMs = r.int('WEBHOOK_TIMEOUT_MS', 10_000, 10, 60_000);
  return {
    deliveryIntervalMs: r.int('WEBHOOK_DELIVERY_INTERVAL_MS', 500, 10, 60_000),
    timeoutMs,
    leaseMs: r.int('WEBHOOK_LEASE_MS', timeoutMs + 30_000, timeoutMs + 1000),
    batch: r.int('WEBHOOK_DELIVERY_BATCH', 100, 1, 500),
    retryBaseMs: r.int('WEBHOOK_RETRY_BASE_MS', 5000, 1),
    retentionMs: r.int('WEBHOOK_RETENTION_DAYS', 30, 1, 3650) * 24 * HOUR_MS,
    pruneIntervalMs: r.int('WEBHOOK_PRUNE_INTERVAL_MS', 300_000, 10),
    endpointRetryScheduleMs: retrySchedule(r, 'WEBHOOK_ENDPOINT_RETRY_SCHEDULE_MS', ENDPOINT_RETRY_SCHEDULE_MS),
    disableAfterFailures: r.int('WEBHOOK_DISABLE_AFTER_FAILURES', 50, 1, 1_000_000),
  };
}

/** Comma-separated waits in ms, 1 to 20 of them, each up to 7 days. */
function retrySchedule(r: EnvReader, name: string, def: number[]): number[] {
  const raw = r.optional(name);
  if (raw === null || raw.trim() === '') return def;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20 || parts.some((p) => !/^\d{1,9}$/.test(p) || Number(p) > 7 * 86_400_000)) {
    r.fail(`${name} must be 1 to 20 comma-separated waits in ms (each at most 604800000), got "${raw}"`);
    return def;
  }
  return parts.map(Number);
}
