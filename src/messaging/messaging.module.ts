import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { SandboxAdminController } from './admin/sandbox-admin.controller';
import { MessageEntity } from './entities/message.entity';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { DeliveryStep } from './delivery-step';
import { MessageLog } from './message-log';
import { MessagePayments } from './message-payments';
import { MessagesController } from './messages.controller';
import { MessagesService } from './messages.service';
import { OutcomeRecorder } from './outcome-recorder';
import { ProviderGateway } from './provider-gateway';
import { MessageLeases } from './scheduled/message-leases';
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
  controllers: [MessagesController, SandboxAdminController],
  providers: [
    MessageValidator,
    MessageLog,
    ProviderGateway,
    MessagePayments,
    DeliveryStep,
    OutcomeRecorder,
    SendPipeline,
    WindowSender,
    MessagesService,
    MessageLeases,
    ScheduledSender,
    ScheduledCancelService,
  ],
  exports: [MessageValidator, SendPipeline, WindowSender, MessageLog],
})
export class MessagingModule {}
