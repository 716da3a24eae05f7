import { ApiLivemode } from '../../../common/openapi';
import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { ErasureView } from '../erasure.view';

export class CreateErasureDto {
  @ApiProperty({
    description:
      'A phone number (E.164, or national in the default region) or an email address, normalised like a message `to`.',
    maxLength: 320,
    example: '+966501234567',
  })
  @IsString({ message: 'recipient must be a string' })
  @IsNotEmpty({ message: 'recipient is required' })
  @MaxLength(320, { message: 'recipient must be at most 320 characters' })
  recipient: string;
}

export class ErasureCountsDto {
  @ApiProperty({ description: 'Messages of the message log.', example: 12 })
  messages: number;
  @ApiProperty({ description: 'Rows of bulk jobs.', example: 3 })
  bulkRows: number;
  @ApiProperty({ description: 'Inbound SMS from the number.', example: 1 })
  inboundSms: number;
  @ApiProperty({ description: 'Web-session inbound messages from the number.', example: 0 })
  webInbound: number;
  @ApiProperty({ description: 'Verification codes sent to the recipient.', example: 2 })
  verifications: number;
  @ApiProperty({ description: 'Webhook deliveries still pending whose body named the recipient.', example: 0 })
  webhookDeliveries: number;
  @ApiProperty({
    description:
      'Suppression entries of the recipient: their plain recipient dropped, the entry kept (still enforced).',
    example: 0,
  })
  suppressions: number;
  @ApiProperty({
    description: 'Deliveries the sandbox provider recorded for the recipient (address, text and subject).',
    example: 0,
  })
  sandboxDeliveries: number;
}

export class Erasure implements ErasureView {
  @ApiProperty({ example: 'era_01m7y90kewyw5pyx06wnaqb2' })
  id: string;

  @ApiProperty({ enum: ['running', 'completed'], example: 'completed' })
  status: 'running' | 'completed';

  @ApiProperty({
    description: 'The one-way hash (per account) that replaced the recipient in every erased row.',
    example: '5d41402abc4b2a76b9719d911017c592a1b2c3d4e5f60718293a4b5c6d7e8f90',
  })
  recipientHash: string;

  @ApiProperty({ type: ErasureCountsDto, description: 'Rows anonymised so far, per kind (all runs added up).' })
  counts: Record<string, number>;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T18:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-28T18:00:02.000Z' })
  completedAt: string | null;

  @ApiLivemode()
  livemode: boolean;
}

export class ErasureResult {
  @ApiProperty({ type: Erasure })
  erasure: Erasure;
}

export const ERASURE_EXAMPLE: ErasureView = {
  id: 'era_01m7y90kewyw5pyx06wnaqb2',
  status: 'running',
  recipientHash: '5d41402abc4b2a76b9719d911017c592a1b2c3d4e5f60718293a4b5c6d7e8f90',
  counts: {
    messages: 0,
    bulkRows: 0,
    inboundSms: 0,
    webInbound: 0,
    verifications: 0,
    webhookDeliveries: 0,
    suppressions: 0,
    sandboxDeliveries: 0,
  },
  createdAt: '2026-11-28T18:00:00.000Z',
  completedAt: null,
  livemode: true,
};
