import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CHANNELS } from '../../config/app-config';

// Swagger description of POST /api/v2/messages/send. The body itself is checked by MessageValidator
// (stable per-field codes), not by class-validator.
export class SendMessageBodyDoc {
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 100 }], description: 'Phone (E.164 or national for DEFAULT_REGION) or email; an array of up to 100 shares one content. Omit for chatapp_web / messaging_bot (chatId is the recipient).' })
  to: string | string[];
  @ApiProperty({ enum: CHANNELS }) channel: string;
  @ApiProperty({ enum: ['free_text', 'template'] }) messageType: string;
  @ApiPropertyOptional({ description: '{ text } ; email: { subject, text and/or html }' }) content?: Record<string, string>;
  @ApiPropertyOptional({ description: 'SMS sender name; absent = account default or platform default' }) sender?: string;
  @ApiPropertyOptional({ description: '{ id, variablesIndexed?: string[], buttonVariables?: string[], headerMediaUrl? }' }) template?: Record<string, unknown>;
  @ApiPropertyOptional({ description: '{ url, mimeType?, fileName? } (not on local_sms)' }) attachment?: Record<string, unknown>;
  @ApiPropertyOptional() chatId?: string;
  @ApiPropertyOptional({ description: '{ moduleType, accountId, chatId } copied from the chat list' }) conversationContext?: Record<string, string>;
  @ApiPropertyOptional({ description: 'ISO 8601 time in the future (at most one year); paid when scheduled' }) scheduleAt?: string;
}

export class ListMessagesQuery {
  @IsOptional() @IsIn(['scheduled', 'queued', 'sent', 'failed'])
  status?: string;

  @IsOptional() @IsIn(CHANNELS as unknown as string[])
  channel?: string;

  @IsOptional() @IsString() @MaxLength(40)
  bulkJobId?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100)
  limit?: number;

  @IsOptional() @IsString() @MaxLength(500)
  cursor?: string;
}

export class SentMessageDoc {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'E.164 phone, lowercased email, or chat id' }) to: string;
  @ApiProperty({ enum: CHANNELS }) channel: string;
  @ApiProperty({ enum: ['sent', 'queued', 'scheduled', 'failed'] }) status: string;
  @ApiProperty({ description: 'Minor units taken from the wallet (0 when a free message or the plan quota paid, or refunded)' }) cost: number;
  @ApiPropertyOptional({ description: 'ISO 8601, scheduled messages only' }) scheduledAt?: string;
  @ApiPropertyOptional({ description: 'Failed messages only, e.g. PROVIDER_REJECTED' }) errorCode?: string;
}

class SentMessagesDoc {
  @ApiProperty({ type: [SentMessageDoc] }) messages: SentMessageDoc[];
}

export class SendMessageResponseDoc {
  @ApiProperty({ enum: [true] }) success: boolean;
  @ApiProperty({ type: SentMessagesDoc }) data: SentMessagesDoc;
}
