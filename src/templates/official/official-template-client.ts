import { ApiError } from '../../common/errors';
import { ProviderError } from '../../providers/provider.types';
import type { BodyParameter, HeaderType, OtpOptions, TemplateButton, TemplateSubType } from '../template.types';
import type { ProviderReviewStatus } from './provider-template-status';
import type { AccountId } from '../../common/account-id';

/** What is submitted to the official provider for review. */
export interface OfficialTemplateSubmission {
  name: string;
  language: string;
  subType: TemplateSubType;
  body: string | null;
  bodyParameters: BodyParameter[];
  /** `mediaUrl`: the public preview link of the header media; `media`: its bytes, for providers that take an upload. */
  header: { type: HeaderType; text: string | null; mediaUrl: string | null; media: HeaderMediaSource | null } | null;
  footer: string | null;
  buttons: TemplateButton[];
  otp: OtpOptions | null;
  /** Business account the template is filed under (sender's, or CHATAPP_CLOUD_WABA_ID). */
  wabaId: string | null;
}

/** Stored header media, read only by a client that uploads it. */
export interface HeaderMediaSource {
  mimeType: string;
  size: number;
  read(): Promise<Buffer>;
}

export interface OfficialTemplateReceipt {
  providerTemplateId: string;
  status: ProviderReviewStatus;
}

/** A template as the provider knows it, found in one business account (manual link check). */
export interface ProviderTemplateRecord {
  providerTemplateId: string;
  name: string;
  language: string;
  status: ProviderReviewStatus;
  /** Number of `{{n}}` body placeholders, null when the provider did not say. */
  variableCount: number | null;
}

/**
 * Submits templates to the official chat-app provider. Throws ProviderError (unavailable / timeout
 * -> 503 PROVIDER_UNAVAILABLE, rate_limited -> 429, failed -> 502) or ApiError VALIDATION_ERROR
 * when the provider refuses the template itself. Every call names the account whose template it is
 * (null: the operator's default templates), so a client can answer by account (ByAccountTemplateClient).
 */
export abstract class OfficialTemplateClient {
  abstract readonly name: string;
  abstract submit(
    submission: OfficialTemplateSubmission,
    accountId: AccountId | null,
  ): Promise<OfficialTemplateReceipt>;
  /**
   * The template `providerTemplateId` when it is filed under business account `wabaId`; null when the
   * provider does not know it there (unknown id, or another business account's template).
   */
  abstract lookup(
    providerTemplateId: string,
    wabaId: string | null,
    accountId: AccountId | null,
  ): Promise<ProviderTemplateRecord | null>;
  /** Current review status at the provider (scheduled poll), null when unknown there. */
  abstract fetchStatus(
    providerTemplateId: string,
    accountId: AccountId | null,
  ): Promise<{ status: ProviderReviewStatus; reason: string | null } | null>;
}

/** The client of each account's templates, as `pick` chooses (templates.module.ts: by the account's mode). */
export class ByAccountTemplateClient extends OfficialTemplateClient {
  /** The name of the client of live and default templates (the status poll runs for a real provider). */
  readonly name: string;

  constructor(
    live: OfficialTemplateClient,
    private readonly pick: (accountId: AccountId | null) => OfficialTemplateClient,
  ) {
    super();
    this.name = live.name;
  }

  submit(submission: OfficialTemplateSubmission, accountId: AccountId | null): Promise<OfficialTemplateReceipt> {
    return this.pick(accountId).submit(submission, accountId);
  }

  lookup(
    providerTemplateId: string,
    wabaId: string | null,
    accountId: AccountId | null,
  ): Promise<ProviderTemplateRecord | null> {
    return this.pick(accountId).lookup(providerTemplateId, wabaId, accountId);
  }

  fetchStatus(
    providerTemplateId: string,
    accountId: AccountId | null,
  ): Promise<{ status: ProviderReviewStatus; reason: string | null } | null> {
    return this.pick(accountId).fetchStatus(providerTemplateId, accountId);
  }
}

const PROVIDER_CODES = {
  unavailable: 'PROVIDER_UNAVAILABLE',
  rate_limited: 'PROVIDER_RATE_LIMITED',
  failed: 'PROVIDER_ERROR',
} as const;

/** Runs a call to the official provider during a request: its failures become our stable codes. */
export async function providerCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ProviderError) {
      const code = PROVIDER_CODES[err.kind];
      const retry = err.retryAfterMs ? { retryAfterSeconds: Math.ceil(err.retryAfterMs / 1000) } : {};
      throw new ApiError(
        code,
        code === 'PROVIDER_UNAVAILABLE'
          ? 'The official provider is unavailable or timed out; nothing was stored'
          : `The official provider failed: ${err.message}`,
        retry,
      );
    }
    throw err;
  }
}
