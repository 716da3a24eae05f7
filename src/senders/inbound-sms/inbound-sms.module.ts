import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { INBOUND_SMS_INTAKE } from '../../providers/provider-events';
import { InboundSmsEntity } from '../entities/inbound-sms.entity';
import { InboundSmsEraser } from './inbound-sms-eraser.repository';
import { InboundSmsPurgeRepository } from './inbound-sms-purge.repository';
import { InboundSmsQueryService } from './inbound-sms-query.service';
import { InboundSmsSweeper } from './inbound-sms-sweeper';
import { InboundSmsController } from './inbound-sms.controller';
import { InboundSmsRepository } from './inbound-sms.repository';
import { InboundSmsService } from './inbound-sms.service';

/**
 * SMS sent to the accounts' sender names (inbound SMS), part of the senders feature: the intake
 * (joining parts, dropping redeliveries), the sweep of incomplete sets and GET /api/v2/sms/inbound.
 * Global to hand the providers their INBOUND_SMS_INTAKE port (the SMPP adapter's deliver_sm), and
 * the service itself to the test-mode controls (an SMS simulated for one account).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([InboundSmsEntity])],
  controllers: [InboundSmsController],
  providers: [
    InboundSmsRepository,
    InboundSmsEraser,
    InboundSmsPurgeRepository,
    InboundSmsService,
    InboundSmsQueryService,
    InboundSmsSweeper,
    { provide: INBOUND_SMS_INTAKE, useExisting: InboundSmsService },
  ],
  exports: [INBOUND_SMS_INTAKE, InboundSmsService],
})
export class InboundSmsModule {}
