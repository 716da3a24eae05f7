import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { SmsSenderEntity } from './entities/sms-sender.entity';
import { SendersService } from './senders.service';

/** SMS sender names: requests, listing, operator review (with webhook events). */
@Module({
  imports: [TypeOrmModule.forFeature([SmsSenderEntity]), WebhooksModule],
  providers: [SendersService],
  exports: [SendersService],
})
export class SendersModule {}
