import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThanOrEqual, Repository } from 'typeorm';
import { WebSessionChatEntity } from '../entities/web-session-chat.entity';
import type { WebSessionEntity } from '../entities/web-session.entity';
import type { WebSessionStatus } from '../web-session.types';
import { ChatPage, ChatPageRequest, WebSessionProvider } from './web-session-provider';

/** Sandbox sessions: status and chats as the operator stored them; positions are the paging key. */
@Injectable()
export class SandboxWebSessionProvider implements WebSessionProvider {
  readonly name = 'sandbox' as const;

  constructor(@InjectRepository(WebSessionChatEntity) private readonly chats: Repository<WebSessionChatEntity>) {}

  async status(session: WebSessionEntity): Promise<WebSessionStatus> {
    return session.status;
  }

  async listChats(session: WebSessionEntity, page: ChatPageRequest): Promise<ChatPage> {
    const rows = await this.chats.find({
      where: {
        sessionId: session.id,
        position: MoreThanOrEqual(page.from),
        ...(page.type === 'all' ? {} : { kind: page.type }),
      },
      order: { position: 'ASC' },
      take: page.limit + 1,
    });
    const more = rows.length > page.limit;
    const chats = rows
      .slice(0, page.limit)
      .map((r) => ({ chatId: r.chatId, kind: r.kind, title: r.title, phoneNumber: r.phoneNumber }));
    return { chats, next: more ? rows[page.limit].position : null };
  }
}
