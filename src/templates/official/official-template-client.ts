import type { BodyParameter, HeaderType, OtpOptions, TemplateButton, TemplateSubType } from '../template.types';
import type { ProviderReviewStatus } from './provider-template-status';

/** What is submitted to the official provider for review. */
export interface OfficialTemplateSubmission {
  name: string;
  language: string;
  subType: TemplateSubType;
  body: string | null;
  bodyParameters: BodyParameter[];
  header: { type: HeaderType; text: string | null; mediaUrl: string | null } | null;
  footer: string | null;
  buttons: TemplateButton[];
  otp: OtpOptions | null;
  /** Business account the template is filed under (sender's, or CHATAPP_CLOUD_WABA_ID). */
  wabaId: string | null;
}

export interface OfficialTemplateReceipt {
  providerTemplateId: string;
  status: ProviderReviewStatus;
}

/**
 * Submits templates to the official chat-app provider. Throws ProviderError (unavailable / timeout
 * -> 503 PROVIDER_UNAVAILABLE, rate_limited -> 429, failed -> 502) or ApiError VALIDATION_ERROR
 * when the provider refuses the template itself.
 */
export abstract class OfficialTemplateClient {
  abstract readonly name: string;
  abstract submit(submission: OfficialTemplateSubmission): Promise<OfficialTemplateReceipt>;
  /** Current review status at the provider (scheduled poll), null when unknown there. */
  abstract fetchStatus(providerTemplateId: string): Promise<{ status: ProviderReviewStatus; reason: string | null } | null>;
}
