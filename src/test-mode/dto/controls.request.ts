import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { CHANNELS, ChannelName } from '../../config/app-config';
import type { UndeliveredCode } from '../../providers/provider-events';

const E164 = /^\+[1-9]\d{6,14}$/;

export const TEST_RECEIPT_STATUSES = ['delivered', 'read', 'failed'] as const;
export type TestReceiptStatus = (typeof TEST_RECEIPT_STATUSES)[number];

/** The codes a failure receipt gives a sent message (a provider's verdict after the send). */
export const TEST_FAILURE_CODES = [
  'UNDELIVERED',
  'EXPIRED',
  'REJECTED_BY_CARRIER',
] as const satisfies UndeliveredCode[];

/** POST /api/v2/test/messages/{id}/status */
export class SetTestMessageStatusRequest {
  @ApiProperty({
    enum: TEST_RECEIPT_STATUSES,
    description:
      'The receipt to apply: forward only (sent -> delivered -> read, `read` from `sent` passes `delivered`; `failed` only from `sent`).',
    example: 'delivered',
  })
  @IsIn(TEST_RECEIPT_STATUSES, { message: `status must be one of: ${TEST_RECEIPT_STATUSES.join(', ')}` })
  status: TestReceiptStatus;

  @ApiPropertyOptional({
    enum: TEST_FAILURE_CODES,
    description: 'Only with `failed` (default `UNDELIVERED`): the message `errorCode`.',
    example: 'EXPIRED',
  })
  @IsOptional()
  @IsIn(TEST_FAILURE_CODES, { message: `errorCode must be one of: ${TEST_FAILURE_CODES.join(', ')}` })
  errorCode?: UndeliveredCode;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 500,
    description: "Only with `failed`: the message `errorMessage` (default: the writer's text for a provider failure).",
    example: 'Handset switched off for 48 hours',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  errorMessage?: string;
}

/** POST /api/v2/test/inbound/sms */
export class SimulateInboundSmsRequest {
  @ApiProperty({ description: 'The number that sends it (E.164).', example: '+966501234567' })
  @Matches(E164, { message: 'from must be an E.164 number (+ and 7 to 15 digits)' })
  from: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 12,
    description:
      "The test account's approved SMS sender it is sent to (case and a leading + ignored); omitted: its default sender.",
    example: 'MyShop',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(12)
  to?: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 1600,
    description: 'The whole text (parts already joined).',
    example: 'STOP',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(1600)
  text: string;
}

/** POST /api/v2/test/web-sessions */
export class CreateTestWebSessionRequest {
  @ApiProperty({
    pattern: '^[A-Za-z0-9._:@-]{1,100}$',
    description: "The session's name: the `session` of a chatapp_web send and `accountId` of the chats listing.",
    example: 'sales-line',
  })
  @IsString()
  @Matches(/^[A-Za-z0-9._:@-]{1,100}$/, { message: 'name must be 1 to 100 letters, digits or . _ : @ -' })
  name: string;
}

/** POST /api/v2/test/web-sessions/{name}/inbound */
export class SimulateWebInboundRequest {
  @ApiProperty({ description: 'The contact that writes (E.164).', example: '+966501234567' })
  @Matches(E164, { message: 'from must be an E.164 number (+ and 7 to 15 digits)' })
  from: string;

  @ApiProperty({ maxLength: 65_536, example: 'Hello, is my order ready?' })
  @IsString()
  @MaxLength(65_536)
  text: string;
}

/** POST /api/v2/test/sms-senders/{id}/reject and /api/v2/test/templates/{id}/reject */
export class TestRejectionRequest {
  @ApiPropertyOptional({
    maxLength: 500,
    description: 'Why: the `reason` of the sender, or the `rejectionReason` of the template.',
    example: 'Name not owned by the account',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export const TEST_FAULT_KINDS = ['provider_rate_limit', 'provider_unavailable', 'timeout'] as const;
export type TestFaultKind = (typeof TEST_FAULT_KINDS)[number];

/** POST /api/v2/test/faults */
export class AddTestFaultRequest {
  @ApiProperty({
    enum: TEST_FAULT_KINDS,
    description:
      '`provider_rate_limit`: 429 PROVIDER_RATE_LIMITED; `provider_unavailable`: 503 PROVIDER_UNAVAILABLE; `timeout`: the provider never answers, so the provider timeout (PROVIDER_TIMEOUT_MS) gives 503 PROVIDER_UNAVAILABLE.',
    example: 'provider_unavailable',
  })
  @IsIn(TEST_FAULT_KINDS, { message: `kind must be one of: ${TEST_FAULT_KINDS.join(', ')}` })
  kind: TestFaultKind;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, description: 'How many sends fail.', example: 2 })
  @IsInt({ message: 'count must be an integer' })
  @Min(1)
  @Max(1000)
  count: number;

  @ApiPropertyOptional({ enum: CHANNELS, description: 'Only sends of this channel (default: every channel).' })
  @IsOptional()
  @IsIn(CHANNELS as unknown as string[], { message: `channel must be one of: ${CHANNELS.join(', ')}` })
  channel?: ChannelName;
}
