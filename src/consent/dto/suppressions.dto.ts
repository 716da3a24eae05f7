import { ApiLivemode } from '../../common/openapi';
import { CursorPageQuery } from '../../common/dto/cursor-page.query';
import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { CHANNELS } from '../../config/providers.config';
import { CLIENT_SUPPRESSION_REASONS, SUPPRESSION_REASONS, SUPPRESSION_SCOPES } from '../suppression-types';
import type {
  ClientSuppressionReason,
  SuppressionChannel,
  SuppressionReason,
  SuppressionScope,
} from '../suppression-types';

export const SUPPRESSION_CHANNELS: readonly SuppressionChannel[] = [...CHANNELS, 'all'];
const CHANNEL_MESSAGE = `channel must be one of: ${SUPPRESSION_CHANNELS.join(', ')}`;

export class SuppressionEntryInput {
  @ApiProperty({
    description: 'E.164 phone number (a national number is read in DEFAULT_REGION) or an email address.',
    example: '+966501234567',
    maxLength: 320,
  })
  @IsString({ message: 'recipient must be a string' })
  @MaxLength(320, { message: 'recipient must be at most 320 characters' })
  recipient: string;

  @ApiPropertyOptional({ enum: SUPPRESSION_CHANNELS, default: 'all' })
  @IsOptional()
  @IsIn(SUPPRESSION_CHANNELS, { message: CHANNEL_MESSAGE })
  channel?: SuppressionChannel;

  @ApiPropertyOptional({
    enum: SUPPRESSION_SCOPES,
    default: 'marketing',
    description: '`marketing`: marketing messages are refused; `all`: every message, verification codes too.',
  })
  @IsOptional()
  @IsIn(SUPPRESSION_SCOPES, { message: 'scope must be marketing or all' })
  scope?: SuppressionScope;

  @ApiPropertyOptional({
    enum: CLIENT_SUPPRESSION_REASONS,
    default: 'api',
    description:
      'Why the entry is added: `api`, `console` (the developer console sends it), `bounce` (the address bounced at your email provider, say). `keyword`, `import` and `dnd` are set by the service itself.',
  })
  @IsOptional()
  @IsIn(CLIENT_SUPPRESSION_REASONS, { message: `reason must be one of: ${CLIENT_SUPPRESSION_REASONS.join(', ')}` })
  reason?: ClientSuppressionReason;
}

export class CreateSuppressionsBody {
  @ApiProperty({ type: [SuppressionEntryInput], minItems: 1, maxItems: 1000 })
  @IsArray({ message: 'entries must be an array' })
  @ArrayMinSize(1, { message: 'entries must hold 1 to 1000 entries' })
  @ArrayMaxSize(1000, { message: 'entries must hold 1 to 1000 entries' })
  @ValidateNested({ each: true })
  @Type(() => SuppressionEntryInput)
  entries: SuppressionEntryInput[];
}

export class ListSuppressionsQuery extends CursorPageQuery {
  @ApiPropertyOptional({ type: 'string', maxLength: 320, description: 'Only this recipient (normalised like `to`).' })
  @IsOptional()
  @IsString({ message: 'recipient must be a string' })
  @MaxLength(320, { message: 'recipient must be at most 320 characters' })
  recipient?: string;

  @ApiPropertyOptional({ enum: SUPPRESSION_CHANNELS })
  @IsOptional()
  @IsIn(SUPPRESSION_CHANNELS, { message: CHANNEL_MESSAGE })
  channel?: SuppressionChannel;

  @ApiPropertyOptional({ enum: SUPPRESSION_REASONS })
  @IsOptional()
  @IsIn(SUPPRESSION_REASONS, { message: `reason must be one of: ${SUPPRESSION_REASONS.join(', ')}` })
  reason?: SuppressionReason;
}

/** The list's filters, without paging: the export holds every matching entry. */
export class ExportSuppressionsQuery extends PickType(ListSuppressionsQuery, [
  'recipient',
  'channel',
  'reason',
] as const) {}

export class DeleteSuppressionQuery {
  @ApiPropertyOptional({
    enum: SUPPRESSION_CHANNELS,
    description: 'Only the entry of this channel key; default: every entry of the recipient.',
  })
  @IsOptional()
  @IsIn(SUPPRESSION_CHANNELS, { message: CHANNEL_MESSAGE })
  channel?: SuppressionChannel;
}

/** An entry as the API shows it. */
export class Suppression {
  @ApiProperty({ example: 'sup_01m7y90kewyw5pyx06wnaqb2' })
  id: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'null once the recipient was erased (the entry still holds).',
    example: '+966501234567',
  })
  recipient: string | null;

  @ApiProperty({ enum: SUPPRESSION_CHANNELS, example: 'all' })
  channel: SuppressionChannel;

  @ApiProperty({ enum: SUPPRESSION_SCOPES, example: 'marketing' })
  scope: SuppressionScope;

  @ApiProperty({ enum: SUPPRESSION_REASONS, example: 'api' })
  reason: SuppressionReason;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The inbound message or API key that created it.',
    example: 'key_01m7y90kewyw5pyx06wnaqb2',
  })
  source: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T18:00:00.000Z' })
  createdAt: string;

  @ApiLivemode()
  livemode: boolean;
}

export class SuppressionList {
  @ApiProperty({ type: [Suppression] })
  suppressions: Suppression[];
}

export class SuppressionPage extends SuppressionList {
  @ApiProperty({ type: 'string', nullable: true, example: null })
  nextCursor: string | null;

  @ApiProperty({ example: false })
  hasMore: boolean;
}

export class SuppressionRemoval {
  @ApiProperty({ description: 'Entries removed.', example: 1 })
  removed: number;
}

export class SuppressionImport {
  @ApiProperty({ description: 'Data rows read (the header not counted).', example: 3 })
  rows: number;

  @ApiProperty({
    description:
      'Entries in the file: each (recipient, channel) once (a repeated pair counts once, its last row wins).',
    example: 2,
  })
  total: number;

  @ApiProperty({ description: 'Entries that were not on the list.', example: 1 })
  imported: number;

  @ApiProperty({ description: "Entries already on the list: kept, their scope set to the file's.", example: 1 })
  alreadyPresent: number;
}

export const SUPPRESSION_EXAMPLE: Suppression = {
  id: 'sup_01m7y90kewyw5pyx06wnaqb2',
  recipient: '+966501234567',
  channel: 'all',
  scope: 'marketing',
  reason: 'api',
  source: 'key_01m7y90kewyw5pyx06wnaqb2',
  createdAt: '2026-11-28T18:00:00.000Z',
  livemode: true,
};
