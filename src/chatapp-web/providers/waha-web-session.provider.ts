import { Injectable } from '@nestjs/common';
import { ProviderError } from '../../providers/provider.types';
import type { WebSessionEntity } from '../entities/web-session.entity';
import type { WebSessionStatus } from '../web-session.types';
import { WahaClient } from './waha.client';
import { ChatPage, ChatPageRequest, ProviderChat, WebSessionProvider } from './web-session-provider';
import { chatFromWaha, isObj, statusFromWaha, str } from './waha.mapping';

// A filtered page may need several provider pages; this bounds the provider calls of one request.
const MAX_CALLS_PER_PAGE = 5;
const MAX_BATCH = 100;

/** WAHA sessions: live status (GET /api/sessions/{s}) and chats (GET /api/{s}/chats, offset paging). */
@Injectable()
export class WahaWebSessionProvider implements WebSessionProvider {
  readonly name = 'waha' as const;

  constructor(private readonly client: WahaClient) {}

  async status(session: WebSessionEntity): Promise<WebSessionStatus> {
    const body = await this.client.getJson(`/api/sessions/${encodeURIComponent(session.providerSession)}`);
    // A session the provider does not know cannot serve chats: not ready rather than a provider fault.
    if (body === null) return 'stopped';
    const status = statusFromWaha(body);
    if (!status)
      throw new ProviderError(
        'failed',
        `Web-session provider reported an unknown session status ${(isObj(body) && str(body.status)) || '(none)'}`,
      );
    return status;
  }

  async listChats(session: WebSessionEntity, page: ChatPageRequest): Promise<ChatPage> {
    const batch = Math.min(MAX_BATCH, page.limit + 1);
    const taken: { chat: ProviderChat; index: number }[] = [];
    let offset = page.from;
    for (let call = 0; call < MAX_CALLS_PER_PAGE; call++) {
      const body = await this.client.getJson(`/api/${encodeURIComponent(session.providerSession)}/chats`, {
        limit: batch,
        offset,
        sortBy: 'id',
        sortOrder: 'asc',
      });
      if (!Array.isArray(body))
        throw new ProviderError('failed', 'Web-session provider answered chats with something that is not a list');
      body.forEach((raw: unknown, i) => {
        const chat = chatFromWaha(raw);
        if (chat && (page.type === 'all' || chat.kind === page.type)) taken.push({ chat, index: offset + i });
      });
      if (taken.length > page.limit)
        return { chats: taken.slice(0, page.limit).map((t) => t.chat), next: taken[page.limit].index };
      if (body.length < batch) return { chats: taken.map((t) => t.chat), next: null };
      offset += body.length;
    }
    // Scan budget spent (a sparse filter): return what was found; the next page resumes the scan.
    return { chats: taken.map((t) => t.chat), next: offset };
  }
}
