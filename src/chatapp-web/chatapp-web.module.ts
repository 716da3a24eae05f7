import { Global, Module } from '@nestjs/common';
import { WebInboundEraser } from './inbound/web-inbound-eraser.repository';
import { WebInboundPurgeRepository } from './inbound/web-inbound-purge.repository';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { SESSION_LOOKUP } from '../messaging/validation/lookups';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminWebSessionsController } from './admin-web-sessions.controller';
import { ChatsController } from './chats.controller';
import { ChatsService } from './chats.service';
import { InboundMessagesService } from './inbound/inbound-messages.service';
import { WahaHookController } from './inbound/waha-hook.controller';
import { WahaHookService } from './inbound/waha-hook.service';
import { InboundMessageEntity } from './entities/inbound-message.entity';
import { WebSessionChatEntity } from './entities/web-session-chat.entity';
import { WebSessionEntity } from './entities/web-session.entity';
import { SandboxWebSessionProvider } from './providers/sandbox-web-session.provider';
import { WahaSendProvider } from './providers/waha-send.provider';
import { WahaWebSessionProvider } from './providers/waha-web-session.provider';
import { WahaClient } from './providers/waha.client';
import { WebSessionProviders } from './providers/web-session-providers';
import { WebSessionsService } from './web-sessions.service';

/**
 * Web sessions and messaging-bot ids: chat listing (sandbox or WAHA) and inbound messages. Global to
 * hand messaging its SESSION_LOOKUP port (messaging sits below the features); sessions and their
 * inbound intake are exported for the test-mode controls.
 */
@Global()
@Module({
  imports: [
    AccountsModule,
    WebhooksModule,
    TypeOrmModule.forFeature([WebSessionEntity, WebSessionChatEntity, InboundMessageEntity]),
  ],
  controllers: [AdminWebSessionsController, ChatsController, WahaHookController],
  providers: [
    WebInboundEraser,
    WebInboundPurgeRepository,
    WebSessionsService,
    WahaClient,
    SandboxWebSessionProvider,
    WahaWebSessionProvider,
    WahaSendProvider,
    WebSessionProviders,
    ChatsService,
    InboundMessagesService,
    WahaHookService,
    { provide: SESSION_LOOKUP, useExisting: WebSessionsService },
  ],
  exports: [SESSION_LOOKUP, WebSessionsService, InboundMessagesService],
})
export class ChatappWebModule {}
