import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ApiLivemode } from '../../common/openapi';
import {
  HEADER_TYPES,
  OTP_TYPES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_PROVIDERS,
  TEMPLATE_STATUSES,
  TEMPLATE_SUB_TYPES,
} from '../template.types';

const str = { type: 'string', nullable: true } as const;

export class OfficialSender {
  @ApiProperty({
    example: 'platform',
    description: '`platform` or the id of an account sender; use it as officialSenderId',
  })
  id: string;
  @ApiProperty({ enum: ['platform', 'account'] }) scope: string;
  @ApiProperty() isPlatform: boolean;
  @ApiProperty() isDefault: boolean;
  @ApiProperty(str) label: string | null;
  @ApiProperty({ ...str, example: '+966511111111' }) phoneNumber: string | null;
  @ApiProperty() displayName: string;
  @ApiLivemode() livemode: boolean;
}

export class TemplateBodyParameter {
  @ApiProperty({ type: 'integer', minimum: 1 }) index: number;
  @ApiProperty() label: string;
}

export class TemplateButton {
  @ApiProperty({ enum: ['url', 'phone'] }) type: string;
  @ApiProperty() text: string;
  @ApiProperty() url: string;
  @ApiProperty({ ...str, required: false }) urlExample?: string | null;
}

export class TemplateOtpOptions {
  @ApiProperty({ type: 'string', nullable: true, enum: [...OTP_TYPES, null] }) otpType: string | null;
  @ApiProperty({ type: 'boolean', nullable: true }) addSecurityRecommendation: boolean | null;
  @ApiProperty({ type: 'integer', nullable: true }) codeExpirationMinutes: number | null;
  @ApiProperty(str) otpButtonText: string | null;
  @ApiProperty(str) packageName: string | null;
  @ApiProperty(str) signatureHash: string | null;
  @ApiProperty({ type: 'boolean', nullable: true }) zeroTapTermsAccepted: boolean | null;
}

/** A template as GET /api/v2/templates/{id} answers it. */
export class Template {
  @ApiProperty({ example: 'tpl_01JD0Q8Y4C7M2X' }) id: string;
  @ApiProperty({ example: 'order_update' }) name: string;
  @ApiProperty({ enum: TEMPLATE_CATEGORIES }) category: string;
  @ApiProperty({ enum: TEMPLATE_SUB_TYPES }) subType: string;
  @ApiProperty({ enum: TEMPLATE_STATUSES }) status: string;
  @ApiProperty(str) language: string | null;
  @ApiProperty(str) body: string | null;
  @ApiProperty({ type: [TemplateBodyParameter] }) bodyParameters: TemplateBodyParameter[];
  @ApiProperty({ type: 'string', nullable: true, enum: [...HEADER_TYPES, null] }) headerType: string | null;
  @ApiProperty(str) headerValue: string | null;
  @ApiProperty(str) headerAssetId: string | null;
  @ApiProperty({ ...str, description: 'Where the stored header file can be previewed' }) headerPreviewUrl:
    string | null;
  @ApiProperty({ description: 'A send may pass template.headerMediaUrl' }) allowsHeaderMediaOverride: boolean;
  @ApiProperty(str) footer: string | null;
  @ApiProperty({ type: [TemplateButton] }) buttons: TemplateButton[];
  @ApiProperty({ type: 'array', items: { type: 'string' } }) urlButtonVariables: string[];
  @ApiProperty({ type: 'array', items: { type: 'string' }, example: ['{{1}}'] }) indexedPlaceholders: string[];
  @ApiProperty(str) content: string | null;
  @ApiProperty(str) emailSubject: string | null;
  @ApiProperty({ type: 'array', items: { type: 'string' } }) parameters: string[];
  @ApiProperty({ enum: TEMPLATE_PROVIDERS }) provider: string;
  @ApiProperty(str) providerTemplateId: string | null;
  @ApiProperty(str) manualProvider: string | null;
  @ApiProperty(str) creationMode: string | null;
  @ApiProperty(str) officialSenderId: string | null;
  @ApiProperty({ type: OfficialSender, nullable: true }) officialSender: OfficialSender | null;
  @ApiProperty() isPlatformNumber: boolean;
  @ApiProperty({ description: 'A default template, visible to every account' }) isDefault: boolean;
  @ApiProperty({ type: TemplateOtpOptions, nullable: true }) otp: TemplateOtpOptions | null;
  @ApiProperty(str) rejectionReason: string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
  @ApiLivemode() livemode: boolean;
}

/** What a created SMS template shows (the spec's answer). */
export class SmsTemplateSummary {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['sms'] }) category: string;
  @ApiProperty({ enum: TEMPLATE_STATUSES }) status: string;
  @ApiLivemode() livemode: boolean;
}

export class TemplatePage {
  @ApiProperty({ type: [Template] }) templates: Template[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page' }) nextCursor:
    string | null;
  @ApiProperty() hasMore: boolean;
}

export class OfficialSenderList {
  @ApiProperty({ type: [OfficialSender] }) officialSenders: OfficialSender[];
}

export class OfficialSenderCreated {
  @ApiProperty({ type: OfficialSender }) officialSender: OfficialSender;
}

export class AdminTemplate extends Template {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Owning account; null for a default template.',
    example: 'acc_01JD0Q8Y4C7M2X',
  })
  accountId: string | null;
}

export class AdminTemplatePage {
  @ApiProperty({ type: [AdminTemplate], description: 'Newest first.' }) templates: AdminTemplate[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` (same status) for the next page' })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}

export class TemplateResult {
  @ApiProperty({ type: Template }) template: Template;
}

export class MediaAsset {
  @ApiProperty({ description: 'Pass as headerAssetId when creating a template' }) headerAssetId: string;
  @ApiProperty({ enum: ['image', 'video', 'document'] }) headerType: string;
  @ApiProperty({ example: 'image/png' }) mimeType: string;
  @ApiProperty({ type: 'integer', description: 'Bytes' }) size: number;
  @ApiProperty() previewUrl: string;
  @ApiLivemode() livemode: boolean;
}

export const OFFICIAL_SENDER_EXAMPLE = {
  id: 'platform',
  scope: 'platform',
  isPlatform: true,
  isDefault: true,
  label: null,
  phoneNumber: '+966511111111',
  displayName: 'Platform',
  livemode: true,
};
export const TEMPLATE_EXAMPLE = {
  id: 'tpl_01JD0Q8Y4C7M2X',
  name: 'order_update',
  category: 'chatapp',
  subType: 'utility',
  status: 'approved',
  language: 'en',
  body: 'Hello {{1}}, your order {{2}} has shipped.',
  bodyParameters: [
    { index: 1, label: 'name' },
    { index: 2, label: 'order number' },
  ],
  headerType: null,
  headerValue: null,
  headerAssetId: null,
  headerPreviewUrl: null,
  allowsHeaderMediaOverride: false,
  footer: null,
  buttons: [],
  urlButtonVariables: [],
  indexedPlaceholders: ['{{1}}', '{{2}}'],
  content: null,
  emailSubject: null,
  parameters: ['name', 'order number'],
  provider: 'official',
  providerTemplateId: '1234567890',
  manualProvider: null,
  creationMode: null,
  officialSenderId: 'platform',
  officialSender: OFFICIAL_SENDER_EXAMPLE,
  isPlatformNumber: true,
  isDefault: false,
  otp: null,
  rejectionReason: null,
  createdAt: '2026-11-22T10:00:00.000Z',
  livemode: true,
};
export const MEDIA_ASSET_EXAMPLE = {
  headerAssetId: 'med_01JD0Q8Y4C7M2X',
  headerType: 'image',
  mimeType: 'image/png',
  size: 48213,
  previewUrl: 'http://localhost:3000/media/template-headers/med_01JD0Q8Y4C7M2X',
  livemode: true,
};

/** 201 of template creation: the full template, or the short form an SMS template answers with. */
export function ApiTemplateCreated(example: unknown): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(Template, SmsTemplateSummary),
    ApiResponse({
      status: 201,
      description: 'Created',
      schema: {
        type: 'object',
        required: ['success', 'data'],
        properties: {
          success: { type: 'boolean', enum: [true] },
          message: { type: 'string', description: 'A note for people, e.g. that the template awaits review' },
          data: {
            type: 'object',
            required: ['template'],
            properties: {
              template: { anyOf: [{ $ref: getSchemaPath(Template) }, { $ref: getSchemaPath(SmsTemplateSummary) }] },
            },
          },
        },
      },
      example,
    }),
  ) as MethodDecorator;
}
