import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  HEADER_TYPES,
  HeaderType,
  OTP_TYPES,
  OtpType,
  TEMPLATE_CATEGORIES,
  TEMPLATE_PROVIDERS,
  TEMPLATE_SUB_TYPES,
  TemplateCategory,
  TemplateProvider,
  TemplateSubType,
} from '../template.types';

export class BodyParameterDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The n of a {{n}} placeholder' })
  @IsInt({ message: 'bodyParameters.index must be an integer' })
  @Min(1, { message: 'bodyParameters.index must be at least 1' })
  index: number;

  @ApiProperty({ minLength: 1, maxLength: 1000, description: 'What the variable holds (shown to reviewers)' })
  @IsString({ message: 'bodyParameters.label must be a string' })
  @Length(1, 1000, { message: 'bodyParameters.label must be 1 to 1000 characters' })
  label: string;
}

export class TemplateButtonDto {
  @ApiProperty({ enum: ['url', 'phone'] })
  @IsIn(['url', 'phone'], { message: 'buttons.type must be one of: url, phone' })
  type: 'url' | 'phone';

  @ApiProperty({ minLength: 1, maxLength: 25 })
  @IsString({ message: 'buttons.text must be a string' })
  @Length(1, 25, { message: 'buttons.text must be 1 to 25 characters' })
  text: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 2000,
    description: 'URL (a trailing {{1}} makes it dynamic) or phone number',
  })
  @IsString({ message: 'buttons.url must be a string' })
  @Length(1, 2000, { message: 'buttons.url must be 1 to 2000 characters' })
  url: string;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString({ message: 'buttons.urlExample must be a string' })
  @MaxLength(2000)
  urlExample?: string;
}

const NAME_RE = /^[a-z_]+$/;

/** POST /api/v2/templates (JSON body, or the `payload` JSON string of a multipart request). */
export class CreateTemplateDto {
  @ApiProperty({ example: 'order_update', pattern: '^[a-z_]+$', minLength: 1, maxLength: 200 })
  @IsString({ message: 'name must be a string' })
  @Length(1, 200, { message: 'name must be 1 to 200 characters' })
  @Matches(NAME_RE, { message: 'name must contain only lowercase English letters and underscores' })
  name: string;

  @ApiProperty({ enum: TEMPLATE_CATEGORIES })
  @IsIn(TEMPLATE_CATEGORIES, { message: `category must be one of: ${TEMPLATE_CATEGORIES.join(', ')}` })
  category: TemplateCategory;

  @ApiProperty({ enum: TEMPLATE_SUB_TYPES })
  @IsIn(TEMPLATE_SUB_TYPES, { message: `subType must be one of: ${TEMPLATE_SUB_TYPES.join(', ')}` })
  subType: TemplateSubType;

  @ApiPropertyOptional({ example: 'en', pattern: '^[a-z]{2,3}(_[A-Z]{2})?$' })
  @IsOptional()
  @IsString({ message: 'language must be a string' })
  @Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'language must be a language code such as ar, en or en_US' })
  language?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 1024, description: 'Chat-app / SMS body with {{n}} placeholders' })
  @IsOptional()
  @IsString({ message: 'body must be a string' })
  @Length(1, 1024, { message: 'body must be 1 to 1024 characters' })
  body?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100_000, description: 'Email body (text or HTML)' })
  @IsOptional()
  @IsString({ message: 'content must be a string' })
  @Length(1, 100_000, { message: 'content must be 1 to 100000 characters' })
  content?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'emailSubject must be a string' })
  @Length(1, 500, { message: 'emailSubject must be 1 to 500 characters' })
  emailSubject?: string;

  @ApiPropertyOptional({ enum: HEADER_TYPES })
  @IsOptional()
  @IsIn(HEADER_TYPES, { message: `headerType must be one of: ${HEADER_TYPES.join(', ')}` })
  headerType?: HeaderType;

  @ApiPropertyOptional({ minLength: 1, maxLength: 60, description: 'Text header' })
  @IsOptional()
  @IsString({ message: 'headerValue must be a string' })
  @Length(1, 60, { message: 'headerValue must be 1 to 60 characters' })
  headerValue?: string;

  @ApiPropertyOptional({ maxLength: 40, description: 'From POST /api/v2/templates/media' })
  @IsOptional()
  @IsString({ message: 'headerAssetId must be a string' })
  @MaxLength(40, { message: 'headerAssetId is not a valid asset id' })
  headerAssetId?: string;

  @ApiPropertyOptional({ maxLength: 2000, description: 'https URL of the header file; fetched and stored at creation' })
  @IsOptional()
  @IsString({ message: 'headerMediaUrl must be a string' })
  @MaxLength(2000, { message: 'headerMediaUrl must be at most 2000 characters' })
  headerMediaUrl?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 60 })
  @IsOptional()
  @IsString({ message: 'footer must be a string' })
  @Length(1, 60, { message: 'footer must be 1 to 60 characters' })
  footer?: string;

  @ApiPropertyOptional({ type: [TemplateButtonDto], maxItems: 10 })
  @IsOptional()
  @IsArray({ message: 'buttons must be an array' })
  @ArrayMaxSize(10, { message: 'buttons must have at most 10 items' })
  // ValidateNested passes an array element through unchecked (it validates the inner array's items).
  @IsObject({ each: true, message: 'buttons must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => TemplateButtonDto)
  buttons?: TemplateButtonDto[];

  @ApiPropertyOptional({ type: [BodyParameterDto] })
  @IsOptional()
  @IsArray({ message: 'bodyParameters must be an array' })
  @IsObject({ each: true, message: 'bodyParameters must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => BodyParameterDto)
  bodyParameters?: BodyParameterDto[];

  @ApiPropertyOptional({ enum: OTP_TYPES })
  @IsOptional()
  @IsIn(OTP_TYPES, { message: `otpType must be one of: ${OTP_TYPES.join(', ')}` })
  otpType?: OtpType;

  @ApiPropertyOptional({ type: 'boolean' })
  @IsOptional()
  @IsBoolean({ message: 'addSecurityRecommendation must be a boolean' })
  addSecurityRecommendation?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 90 })
  @IsOptional()
  @IsInt({ message: 'codeExpirationMinutes must be an integer from 1 to 90' })
  @Min(1, { message: 'codeExpirationMinutes must be an integer from 1 to 90' })
  @Max(90, { message: 'codeExpirationMinutes must be an integer from 1 to 90' })
  codeExpirationMinutes?: number;

  @ApiPropertyOptional({ minLength: 1, maxLength: 25 })
  @IsOptional()
  @IsString({ message: 'otpButtonText must be a string' })
  @Length(1, 25, { message: 'otpButtonText must be 1 to 25 characters' })
  otpButtonText?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString({ message: 'packageName must be a string' })
  @Length(1, 200, { message: 'packageName must be 1 to 200 characters' })
  packageName?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString({ message: 'signatureHash must be a string' })
  @Length(1, 200, { message: 'signatureHash must be 1 to 200 characters' })
  signatureHash?: string;

  @ApiPropertyOptional({ type: 'boolean' })
  @IsOptional()
  @IsBoolean({ message: 'zeroTapTermsAccepted must be a boolean' })
  zeroTapTermsAccepted?: boolean;

  @ApiPropertyOptional({ enum: TEMPLATE_PROVIDERS })
  @IsOptional()
  @IsIn(TEMPLATE_PROVIDERS, { message: `provider must be one of: ${TEMPLATE_PROVIDERS.join(', ')}` })
  provider?: TemplateProvider;

  @ApiPropertyOptional({ enum: ['user_session', 'official'] })
  @IsOptional()
  @IsIn(['user_session', 'official'], { message: 'templateTarget must be one of: user_session, official' })
  templateTarget?: 'user_session' | 'official';

  @ApiPropertyOptional({ description: '`platform` or an id from GET /api/v2/chatapp/official-senders' })
  @IsOptional()
  @IsString({ message: 'officialSenderId must be a string' })
  @MinLength(1)
  @MaxLength(40, { message: 'officialSenderId is not a valid sender id' })
  officialSenderId?: string;

  @ApiPropertyOptional({ enum: ['manual_external_id'] })
  @IsOptional()
  @IsIn(['manual_external_id'], { message: 'creationMode must be one of: manual_external_id' })
  creationMode?: 'manual_external_id';

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description: 'With creationMode manual_external_id: the template id at the provider',
  })
  @IsOptional()
  @IsString({ message: 'providerTemplateId must be a string' })
  @Length(1, 200, { message: 'providerTemplateId must be 1 to 200 characters' })
  providerTemplateId?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 100 })
  @IsOptional()
  @IsInt({ message: 'manualVariableCount must be an integer from 0 to 100' })
  @Min(0, { message: 'manualVariableCount must be an integer from 0 to 100' })
  @Max(100, { message: 'manualVariableCount must be an integer from 0 to 100' })
  manualVariableCount?: number;
}
