import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ChatappWebModule } from '../chatapp-web/chatapp-web.module';
import { MessagingModule } from '../messaging/messaging.module';
import { InboundSmsModule } from '../senders/inbound-sms/inbound-sms.module';
import { SendersModule } from '../senders/senders.module';
import { TemplatesModule } from '../templates/templates.module';
import { DeliveryControlsController } from './delivery-controls.controller';
import { DeliveryControlsService } from './delivery-controls.service';
import { InboundControlsController } from './inbound-controls.controller';
import { InboundControlsService } from './inbound-controls.service';
import { ReviewControlsController } from './review-controls.controller';

/**
 * Test-mode controls (issue 30), `/api/v2/test/...`, test owner keys only: play the provider, the
 * contacts and the reviewers for the calling key's test mode. Owns no table: every change goes
 * through the owning module's exported service (receipts, inbound intakes, reviews, sandbox faults,
 * the test balance), scoped by the test account, so only that account's test data can change.
 */
@Module({
  imports: [AccountsModule, MessagingModule, SendersModule, InboundSmsModule, TemplatesModule, ChatappWebModule],
  controllers: [DeliveryControlsController, InboundControlsController, ReviewControlsController],
  providers: [DeliveryControlsService, InboundControlsService],
})
export class TestModeModule {}
