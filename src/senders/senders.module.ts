import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SENDER_LOOKUP } from '../messaging/validation/lookups';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { InboundSmsModule } from './inbound-sms/inbound-sms.module';
import { AdminSendersController } from './admin-senders.controller';
import { DefaultSenderService } from './default-sender.service';
import { SmsSenderEntity } from './entities/sms-sender.entity';
import { SenderReviewService } from './sender-review.service';
import { SendersController } from './senders.controller';
import { SendersService } from './senders.service';

/**
 * SMS sender names: requests, listing, operator review (with webhook events). Global to hand
 * messaging its SENDER_LOOKUP port (messaging sits below the features); the review is exported for
 * the test-mode controls.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SmsSenderEntity]), WebhooksModule, InboundSmsModule],
  controllers: [SendersController, AdminSendersController],
  providers: [
    SendersService,
    SenderReviewService,
    DefaultSenderService,
    { provide: SENDER_LOOKUP, useExisting: SendersService },
  ],
  exports: [SENDER_LOOKUP, SenderReviewService],
})
export class SendersModule {}
