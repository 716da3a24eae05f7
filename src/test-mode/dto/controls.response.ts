import { ApiProperty } from '@nestjs/swagger';
import { CHANNELS } from '../../config/app-config';
import { InboundSmsItem } from '../../senders/inbound-sms/dto/inbound-sms.response';
import { TEST_FAULT_KINDS } from './controls.request';

export class TestInboundSmsResult {
  @ApiProperty({ type: InboundSmsItem, description: 'The SMS as GET /api/v2/sms/inbound lists it.' })
  inboundSms: InboundSmsItem;
}

export class TestFault {
  @ApiProperty({ example: 'flt_01JD0Q8Y4C7M2X' }) id: string;
  @ApiProperty({ enum: TEST_FAULT_KINDS }) kind: string;
  @ApiProperty({ type: 'string', nullable: true, enum: [...CHANNELS, null], description: 'null: every channel' })
  channel: string | null;
  @ApiProperty({ type: 'integer', description: 'How many sends fail.' }) count: number;
}

export class TestFaultAdded {
  @ApiProperty({ type: TestFault }) fault: TestFault;
}

export class TestFaultsCleared {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Faults of the test account that still had sends to fail.' })
  cleared: number;
}
