import type { EnvReader } from './env-reader';

export interface MediaConfig {
  /** Root of the local-disk media store; uploads in flight go to `<dir>/.incoming`. */
  dir: string;
  /** Stored header media per account. */
  quotaBytes: number;
  /** Whole download of header media given by URL. */
  fetchTimeoutMs: number;
  /** Media no template uses is deleted after this age. */
  orphanMs: number;
  purgeTickMs: number;
}

export interface TemplatesConfig {
  /** Status polling of submitted templates (cloud_api only). */
  statusPollMs: number;
  statusPollBatch: number;
}

/** The official chat-app channel's platform side, whichever adapter serves it. */
export interface ChatappConfig {
  /** The platform sender every account can use. */
  platformNumber: string;
  platformDisplayName: string;
  /** CHATAPP_CLOUD_WABA_ID: the platform's business account (null: not configured). */
  wabaId: string | null;
  /** CHATAPP_CLOUD_WEBHOOK_SECRET: the template status hook refuses every call when null. */
  webhookSecret: string | null;
  /** CHATAPP_CLOUD_APP_SECRET: the key of the provider's X-Hub-Signature-256 on /hooks/chatapp/messages (refused when null). */
  appSecret: string | null;
  /** CHATAPP_CLOUD_VERIFY_TOKEN: the hub.verify_token of the webhook subscription check (refused when null). */
  verifyToken: string | null;
}

const HOUR_MS = 3_600_000;

export function mediaSection(r: EnvReader): MediaConfig {
  return {
    dir: r.string('MEDIA_DIR', 'data/media'),
    quotaBytes: r.int('MEDIA_QUOTA_BYTES', 500 * 1024 * 1024, 0),
    fetchTimeoutMs: r.int('MEDIA_FETCH_TIMEOUT_MS', 15000, 100, 600000),
    orphanMs: r.int('MEDIA_ORPHAN_HOURS', 24, 1, 24 * 365) * HOUR_MS,
    purgeTickMs: r.int('MEDIA_PURGE_TICK_MS', HOUR_MS, 1000, 86_400_000),
  };
}

export function templatesSection(r: EnvReader): TemplatesConfig {
  return {
    statusPollMs: r.int('TEMPLATE_STATUS_POLL_MS', 5 * 60_000, 50),
    statusPollBatch: r.int('TEMPLATE_STATUS_POLL_BATCH', 20, 1, 1000),
  };
}

export function chatappSection(r: EnvReader): ChatappConfig {
  return {
    platformNumber: r.string('PLATFORM_CHATAPP_NUMBER', '+966500000001'),
    platformDisplayName: r.string('PLATFORM_CHATAPP_DISPLAY_NAME', 'Platform number'),
    wabaId: r.optional('CHATAPP_CLOUD_WABA_ID'),
    webhookSecret: r.optional('CHATAPP_CLOUD_WEBHOOK_SECRET'),
    appSecret: r.optional('CHATAPP_CLOUD_APP_SECRET'),
    verifyToken: r.optional('CHATAPP_CLOUD_VERIFY_TOKEN'),
  };
}
