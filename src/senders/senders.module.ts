import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminSendersController } from './admin-senders.controller';
import { SmsSenderEntity } from './entities/sms-sender.entity';
import { SenderReviewService } from './sender-review.service';
import { SendersController } from './senders.controller';
import { SendersService } from './senders.service';

/** SMS sender names: requests, listing, operator review (with webhook events). */
@Module({
  imports: [TypeOrmModule.forFeature([SmsSenderEntity]), WebhooksModule],
  controllers: [SendersController, AdminSendersController],
  providers: [SendersService, SenderReviewService],
  exports: [SendersService],
})
export class SendersModule {}
