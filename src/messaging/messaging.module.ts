import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { SandboxAdminController } from './admin/sandbox-admin.controller';
import { MessageEntity } from './entities/message.entity';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { DeliveryCounts } from './delivery-counts';
import { MessageDeliveryFacts } from './message-delivery-facts';
import { DeliveryStep } from './delivery-step';
import { MessagesEraser } from './erasure/messages-eraser.repository';
import { MessagesPurgeRepository } from './retention/messages-purge.repository';
import { MessageExport } from './export/message-export';
import { MessageExportController } from './export/message-export.controller';
import { MessageExportRepository } from './export/message-export.repository';
import { MessageLogRepository } from './message-log.repository';
import { MessagePayments } from './message-payments';
import { MessagesController } from './messages.controller';
import { MessagesService } from './messages.service';
import { OutcomeRecorder } from './outcome-recorder';
import { ProviderGateway } from './provider-gateway';
import { MessageLeasesRepository } from './scheduled/message-leases.repository';
import { ScheduledCancelService } from './scheduled/scheduled-cancel.service';
import { ScheduledSender } from './scheduled/scheduled-sender';
import { SendPipeline } from './send-pipeline';
import { MessageValidator } from './validation/message-validator';
import { WindowSender } from './window-sender';

/**
 * POST /messages/send, the one validator, the one send pipeline, the message log, scheduled sends and
 * their cancellation. Senders, templates and sessions come through ports (validation/lookups.ts)
 * that their feature modules provide globally: messaging imports no feature module.
 */
@Module({
  imports: [TypeOrmModule.forFeature([MessageEntity]), AccountsModule, LifecycleModule],
  controllers: [MessageExportController, MessagesController, SandboxAdminController],
  providers: [
    MessageValidator,
    MessagesEraser,
    MessagesPurgeRepository,
    MessageExportRepository,
    MessageExport,
    MessageLogRepository,
    ProviderGateway,
    MessagePayments,
    DeliveryStep,
    OutcomeRecorder,
    SendPipeline,
    WindowSender,
    MessagesService,
    MessageLeasesRepository,
    ScheduledSender,
    ScheduledCancelService,
    DeliveryCounts,
    MessageDeliveryFacts,
  ],
  exports: [
    MessageValidator,
    SendPipeline,
    WindowSender,
    MessageLogRepository,
    DeliveryCounts,
    MessageDeliveryFacts,
    MessagesService,
  ],
})
export class MessagingModule {}
