import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { ChatappWebModule } from '../chatapp-web/chatapp-web.module';
import { WebSessionsService } from '../chatapp-web/web-sessions.service';
import { SendersModule } from '../senders/senders.module';
import { SendersService } from '../senders/senders.service';
import { TemplatesModule } from '../templates/templates.module';
import { TemplatesService } from '../templates/templates.service';
import { SandboxAdminController } from './admin/sandbox-admin.controller';
import { MessageEntity } from './entities/message.entity';
import { MessageLog } from './message-log';
import { MessagesController } from './messages.controller';
import { MessagesService } from './messages.service';
import { ProviderGateway } from './provider-gateway';
import { ScheduledCancelService } from './scheduled/scheduled-cancel.service';
import { ScheduledSender } from './scheduled/scheduled-sender';
import { SendPipeline } from './send-pipeline';
import { SENDER_LOOKUP, SESSION_LOOKUP, TEMPLATE_LOOKUP } from './validation/lookups';
import { MessageValidator } from './validation/message-validator';

/** POST /messages/send, the one validator, the one send pipeline, the message log, scheduled sends and their cancellation. */
@Module({
  imports: [TypeOrmModule.forFeature([MessageEntity]), AccountsModule, SendersModule, TemplatesModule, ChatappWebModule],
  controllers: [MessagesController, SandboxAdminController],
  providers: [
    { provide: SENDER_LOOKUP, useExisting: SendersService },
    { provide: TEMPLATE_LOOKUP, useExisting: TemplatesService },
    { provide: SESSION_LOOKUP, useExisting: WebSessionsService },
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
