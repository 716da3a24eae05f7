import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { SandboxAdminController } from './admin/sandbox-admin.controller';
import { MessageEntity } from './entities/message.entity';
import { MessageLog } from './message-log';
import { MessagesController } from './messages.controller';
import { MessagesService } from './messages.service';
import { ProviderGateway } from './provider-gateway';
import { ScheduledCancelService } from './scheduled/scheduled-cancel.service';
import { ScheduledSender } from './scheduled/scheduled-sender';
import { SendPipeline } from './send-pipeline';
import { MessageValidator } from './validation/message-validator';

/**
 * POST /messages/send, the one validator, the one send pipeline, the message log, scheduled sends and
 * their cancellation. Senders, templates and sessions come through ports (validation/lookups.ts)
 * that their feature modules provide globally: messaging imports no feature module.
 */
@Module({
  imports: [TypeOrmModule.forFeature([MessageEntity]), AccountsModule],
  controllers: [MessagesController, SandboxAdminController],
  providers: [
    MessageValidator,
    MessageLog,
    ProviderGateway,
    SendPipeline,
    MessagesService,
    ScheduledSender,
    ScheduledCancelService,
  ],
  exports: [MessageValidator, SendPipeline, MessageLog],
})
export class MessagingModule {}
