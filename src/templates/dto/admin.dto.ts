import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { REJECTION_REASON_MAX } from '../entities/template.entity';
import { TEMPLATE_STATUSES, TemplateStatus } from '../template.types';

export class SetTemplateStatusDto {
  @ApiProperty({ enum: TEMPLATE_STATUSES })
  @IsIn(TEMPLATE_STATUSES, { message: `status must be one of: ${TEMPLATE_STATUSES.join(', ')}` })
  status: TemplateStatus;

  @ApiPropertyOptional({ description: 'Shown as rejectionReason when rejected' })
  @IsOptional()
  @IsString()
  @MaxLength(REJECTION_REASON_MAX)
  reason?: string;
}

export class AdminListTemplatesQuery {
  @ApiPropertyOptional({
    enum: TEMPLATE_STATUSES,
    description: 'Only templates with this status (`pending`: waiting for review)',
  })
  @IsOptional()
  @IsIn(TEMPLATE_STATUSES, { message: `status must be one of: ${TEMPLATE_STATUSES.join(', ')}` })
  status?: TemplateStatus;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ maxLength: 500, description: 'nextCursor of the previous page (same status)' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;
}

export class CreateOfficialSenderDto {
  @ApiProperty()
  @IsString()
  @Length(1, 200)
  displayName: string;

  @ApiPropertyOptional({ example: '+966511111111' })
  @IsOptional()
  @Matches(/^\+[1-9]\d{6,14}$/, { message: 'phoneNumber must be an E.164 number' })
  phoneNumber?: string;

  @ApiPropertyOptional({
    description: "Provider's phone-number id: template sends of this sender are posted to it",
    pattern: '^[A-Za-z0-9_-]+$',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'phoneNumberId must be letters, digits, _ or -' })
  phoneNumberId?: string;

  @ApiPropertyOptional({ description: 'Business account id at the provider (default CHATAPP_CLOUD_WABA_ID)' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  wabaId?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  isDefault?: boolean;
}

/** A template created at the sandbox provider outside this service (as in the provider's console). */
export class SandboxOfficialTemplateDto {
  @ApiPropertyOptional({ description: 'Business account it is filed under (default CHATAPP_CLOUD_WABA_ID)' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  wabaId?: string;

  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ example: 'en' })
  @IsString()
  @Length(1, 20)
  language: string;

  @ApiPropertyOptional({ enum: ['pending', 'approved', 'rejected'], default: 'approved' })
  @IsOptional()
  @IsIn(['pending', 'approved', 'rejected'])
  status?: 'pending' | 'approved' | 'rejected';

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 100, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100)
  variableCount?: number;
}

export class SandboxTemplateRegistered {
  @ApiProperty({ description: 'Use as providerTemplateId with creationMode manual_external_id' })
  providerTemplateId: string;
}
