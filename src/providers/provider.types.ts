import type { ChannelName } from '../config/app-config';
import type { AccountId } from '../common/account-id';

/**
 * What the send pipeline hands to a channel provider. `messageId` is our id and is passed to the
 * provider as its idempotency / client reference, so a send whose outcome is unknown after a crash
 * can be settled by asking the provider instead of sending again.
 */
export interface OutboundMessage {
  messageId: string;
  accountId: AccountId;
  channel: ChannelName;
  /** E.164 phone, email address, or provider chat id (web session / bot). */
  to: string;
  /** SMS sender name / official sender id, when the channel has one. */
  sender?: string | null;
  text?: string | null;
  /** Email only. */
  subject?: string | null;
  html?: string | null;
  /** Template sends: what the provider needs to render an approved template. */
  template?: ProviderTemplate | null;
  attachment?: { url: string; mimeType?: string | null; fileName?: string | null } | null;
  /** Web session name or bot id (the spec's conversationContext.accountId). */
  session?: string | null;
  bulkJobId?: string | null;
  rowIndex?: number | null;
  /** A test bulk job's `testOptions.instantReceipts`: the sandbox sends its receipts at once. */
  instantReceipts?: boolean;
}

/** An approved template resolved for one send. */
export interface ProviderTemplate {
  id: string;
  name: string;
  language: string | null;
  providerTemplateId: string | null;
  variables: string[];
  buttonVariables: string[];
  /** Position of each `buttonVariables` entry's URL button among ALL the template's buttons (aligned). */
  buttonIndexes: number[];
  headerMediaUrl?: string | null;
  /**
   * Official chat-app templates: the number the template must go out from, resolved from the
   * template's official sender when the provider is called (never stored with a scheduled payload).
   * Null on channels without official senders, or when the template could not be resolved.
   */
  route: TemplateRoute | null;
}

/**
 * Where an official template is sent from: the platform number, or the account's own sender
 * (`phoneNumberId` null when that sender has no provider phone-number id: the template lives in the
 * account's business account, so no other number may send it).
 */
export type TemplateRoute = { via: 'platform' } | { via: 'account'; phoneNumberId: string | null };

export type ProviderOutcome =
  /**
   * `providerMessageIds`: every id the provider gave the message when it split it (multi-part SMS:
   * one per part, in order), so receipts of each part can be matched; absent means just
   * `providerMessageId`.
   */
  | { status: 'sent'; providerMessageId: string; providerMessageIds?: string[] }
  /**
   * Refused for good: by the provider (bad number, blocked...: PROVIDER_REJECTED), or because its
   * attachment / header media URL is not an allowed target or could not be fetched at send time
   * (INVALID_ATTACHMENT). The message is `failed` and refunded.
   */
  | { status: 'rejected'; code: 'PROVIDER_REJECTED' | 'INVALID_ATTACHMENT'; message: string };

export type ProviderFailureKind = 'rate_limited' | 'unavailable' | 'failed';

/**
 * A provider call that did not reach a verdict on the message. Maps to stable codes:
 * rate_limited -> PROVIDER_RATE_LIMITED (429; bulk pauses), unavailable/timeout -> PROVIDER_UNAVAILABLE
 * (503), failed -> PROVIDER_ERROR (502).
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** One interface per channel kind; adapters (sandbox, smtp, smpp, cloud API, bot API, WAHA) implement it. */
export interface ChannelProvider {
  readonly name: string;
  /**
   * True when the adapter downloads `attachment.url` itself through the GuardedFetcher, which checks
   * the URL and every redirect at the fetch: the gateway then does not check it (and resolve it) again.
   */
  readonly fetchesAttachments?: boolean;
  send(message: OutboundMessage): Promise<ProviderOutcome>;
  /**
   * Settles a message whose outcome is unknown (crash between call and record): returns the outcome
   * if the provider has seen `messageId`, null if it never did (safe to send).
   */
  lookup?(messageId: string): Promise<ProviderOutcome | null>;
}

/**
 * What an adapter set up in onModuleInit because configuration selected it. The registry hands out
 * only selected adapters, so a missing setup is a wiring bug (or a send after shutdown).
 */
export function whenSelected<T>(setup: T | null, adapter: string): T {
  if (setup === null)
    throw new Error(`Provider ${adapter} is not set up: not the configured provider of its channel, or shut down`);
  return setup;
}
