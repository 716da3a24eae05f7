// Shapes of the templates module (what messaging reads is its port, messaging/validation/lookups.ts).

export const TEMPLATE_CATEGORIES = ['chatapp', 'sms', 'message', 'email'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

export const TEMPLATE_SUB_TYPES = ['utility', 'otp', 'marketing', 'free'] as const;
export type TemplateSubType = (typeof TEMPLATE_SUB_TYPES)[number];

export const TEMPLATE_STATUSES = ['pending', 'approved', 'rejected', 'active'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

export const TEMPLATE_PROVIDERS = ['user_session', 'official', 'internal'] as const;
export type TemplateProvider = (typeof TEMPLATE_PROVIDERS)[number];

export const HEADER_TYPES = ['text', 'image', 'video', 'document'] as const;
export type HeaderType = (typeof HEADER_TYPES)[number];
export type MediaHeaderType = Exclude<HeaderType, 'text'>;

export const OTP_TYPES = ['copy_code', 'one_tap', 'zero_tap'] as const;
export type OtpType = (typeof OTP_TYPES)[number];

export interface BodyParameter {
  index: number;
  label: string;
}

export interface TemplateButton {
  type: 'url' | 'phone';
  text: string;
  url: string;
  urlExample?: string | null;
}

export interface OtpOptions {
  otpType: OtpType | null;
  addSecurityRecommendation: boolean | null;
  codeExpirationMinutes: number | null;
  otpButtonText: string | null;
  packageName: string | null;
  signatureHash: string | null;
  zeroTapTermsAccepted: boolean | null;
}

export interface OfficialSenderView {
  id: string;
  scope: 'platform' | 'account';
  isPlatform: boolean;
  isDefault: boolean;
  label: string | null;
  phoneNumber: string | null;
  displayName: string;
  livemode: boolean;
}

export interface TemplateView {
  id: string;
  name: string;
  category: TemplateCategory;
  subType: TemplateSubType;
  status: TemplateStatus;
  language: string | null;
  body: string | null;
  bodyParameters: BodyParameter[];
  headerType: HeaderType | null;
  headerValue: string | null;
  headerAssetId: string | null;
  headerPreviewUrl: string | null;
  allowsHeaderMediaOverride: boolean;
  footer: string | null;
  buttons: TemplateButton[];
  urlButtonVariables: string[];
  indexedPlaceholders: string[];
  content: string | null;
  emailSubject: string | null;
  parameters: string[];
  provider: TemplateProvider;
  providerTemplateId: string | null;
  manualProvider: string | null;
  creationMode: string | null;
  officialSenderId: string | null;
  officialSender: OfficialSenderView | null;
  isPlatformNumber: boolean;
  isDefault: boolean;
  otp: OtpOptions | null;
  rejectionReason: string | null;
  createdAt: string;
  livemode: boolean;
}

/** A created SMS template shows only these (SPEC). */
export type SmsTemplateCreatedView = Pick<TemplateView, 'id' | 'name' | 'category' | 'status' | 'livemode'>;
