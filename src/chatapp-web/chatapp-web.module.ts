import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { AdminWebSessionsController } from './admin-web-sessions.controller';
import { InboundMessageEntity } from './entities/inbound-message.entity';
import { WebSessionChatEntity } from './entities/web-session-chat.entity';
import { WebSessionEntity } from './entities/web-session.entity';
import { WebSessionSettings } from './web-session-settings';
import { WebSessionsService } from './web-sessions.service';

/** Web sessions and messaging-bot ids: chat listing (sandbox or WAHA) and inbound messages. */
@Module({
  imports: [AccountsModule, TypeOrmModule.forFeature([WebSessionEntity, WebSessionChatEntity, InboundMessageEntity])],
  controllers: [AdminWebSessionsController],
  providers: [WebSessionSettings, WebSessionsService],
  exports: [WebSessionsService],
})
export class ChatappWebModule {}
