import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { INBOUND_SMS_INTAKE } from '../../providers/provider-events';
import { InboundSmsEntity } from '../entities/inbound-sms.entity';
import { InboundSmsEraser } from './inbound-sms-eraser.repository';
import { InboundSmsRepository } from './inbound-sms.repository';
import { InboundSmsService } from './inbound-sms.service';

/**
 * SMS sent to the accounts' sender names (inbound SMS), part of the senders feature. Global only to
 * hand the providers their INBOUND_SMS_INTAKE port (the SMPP adapter's deliver_sm), the one export.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([InboundSmsEntity])],
  providers: [
    InboundSmsRepository,
    InboundSmsEraser,
    InboundSmsService,
    { provide: INBOUND_SMS_INTAKE, useExisting: InboundSmsService },
  ],
  exports: [INBOUND_SMS_INTAKE],
})
export class InboundSmsModule {}
