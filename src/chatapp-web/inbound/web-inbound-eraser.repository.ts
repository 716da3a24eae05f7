import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../../common/erasure/recipient-erasers';
import { inList, sql } from '../../database/sql';
import { updateFound } from '../../database/update-found';
import { UnitOfWork } from '../../database/unit-of-work';

/** The chat ids a phone number has in a web session (direct chats only). */
function chatIds(forms: readonly string[]): string[] {
  const digits = forms.filter((f) => /^\+\d+$/.test(f)).map((f) => f.slice(1));
  return digits.flatMap((d) => [`${d}@c.us`, `${d}@s.whatsapp.net`]);
}

/**
 * Web-session inbound messages' part of an erasure: the chat id naming the number -> hash. Their
 * text is not stored here: it travels in the outbox delivery (erased while pending by the outbox's
 * eraser). Found through ix_web_inbound_chat (account_id, remote_chat_id).
 */
@Injectable()
export class WebInboundEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'webInbound';

  constructor(
    private readonly uow: UnitOfWork,
    private readonly erasers: RecipientErasers,
  ) {}

  onModuleInit(): void {
    this.erasers.register(this);
  }

  async erase(t: ErasureTarget, limit: number): Promise<number> {
    const ids = chatIds(t.forms);
    if (ids.length === 0) return 0;
    return updateFound(
      this.uow,
      'web_inbound_messages',
      sql('remote_chat_id = ?', t.hash),
      sql(`account_id = ? AND remote_chat_id IN (${inList(ids.length)})`, t.accountId, ...ids),
      limit,
    );
  }
}
