import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SENDER_LOOKUP } from '../messaging/validation/lookups';
import { INBOUND_SMS_INTAKE } from '../providers/provider-events';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminSendersController } from './admin-senders.controller';
import { InboundSmsEntity } from './entities/inbound-sms.entity';
import { SmsSenderEntity } from './entities/sms-sender.entity';
import { InboundSmsRepository } from './inbound-sms/inbound-sms.repository';
import { InboundSmsService } from './inbound-sms/inbound-sms.service';
import { SenderReviewService } from './sender-review.service';
import { SendersController } from './senders.controller';
import { SendersService } from './senders.service';

/**
 * SMS sender names: requests, listing, operator review (with webhook events), and the SMS sent to
 * them (inbound SMS). Global only to hand the layers below their ports: messaging's SENDER_LOOKUP
 * and the providers' INBOUND_SMS_INTAKE (the SMPP adapter's deliver_sm).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SmsSenderEntity, InboundSmsEntity]), WebhooksModule],
  controllers: [SendersController, AdminSendersController],
  providers: [
    SendersService,
    SenderReviewService,
    InboundSmsRepository,
    InboundSmsService,
    { provide: SENDER_LOOKUP, useExisting: SendersService },
    { provide: INBOUND_SMS_INTAKE, useExisting: InboundSmsService },
  ],
  exports: [SENDER_LOOKUP, INBOUND_SMS_INTAKE],
})
export class SendersModule {}
