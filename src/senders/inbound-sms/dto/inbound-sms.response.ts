import { ApiProperty } from '@nestjs/swagger';
import { ApiLivemode } from '../../../common/openapi';

export class InboundSmsPartView {
  @ApiProperty({ type: 'integer', example: 1 }) seq: number;
  @ApiProperty({ example: 'Part one of a long reply, ' }) text: string;
  @ApiProperty({ format: 'date-time' }) receivedAt: string;
}

export class InboundSmsItem {
  @ApiProperty({ example: 'isms_01JD0000000000000000000000' }) id: string;
  @ApiProperty({ description: 'The number that sent it (E.164 when the SMSC gives one)', example: '+966501234567' })
  from: string;
  @ApiProperty({ description: 'The sender name or number it was sent to', example: 'MyShop' }) to: string;
  @ApiProperty({ description: 'The whole text: the parts joined in order (only those that arrived when partial)' })
  text: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'The sender name (id) it was sent to' })
  senderId: string | null;
  @ApiProperty({ format: 'date-time', description: 'When it (its last part) arrived' }) receivedAt: string;
  @ApiProperty({ type: 'integer', description: 'How many parts the SMS has (1: not concatenated)', example: 1 })
  partsTotal: number;
  @ApiProperty({ type: 'integer', description: 'How many arrived: fewer when parts never came (held 10 minutes)' })
  partsReceived: number;
  @ApiProperty({ description: 'False when it was stored without all its parts' }) complete: boolean;
  @ApiProperty({
    type: [InboundSmsPartView],
    description: 'The parts of a concatenated SMS, in order; empty otherwise',
  })
  parts: InboundSmsPartView[];
  @ApiLivemode() livemode: boolean;
}

export class InboundSmsPage {
  @ApiProperty({ type: [InboundSmsItem], description: 'Newest first' }) inboundSms: InboundSmsItem[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page' })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}

export const INBOUND_SMS_EXAMPLE: InboundSmsItem = {
  id: 'isms_01JD0000000000000000000000',
  from: '+966501234567',
  to: 'MyShop',
  text: 'STOP',
  senderId: 'snd_01JD0000000000000000000000',
  receivedAt: '2026-11-28T10:00:00.000Z',
  partsTotal: 1,
  partsReceived: 1,
  complete: true,
  parts: [],
  livemode: true,
};
