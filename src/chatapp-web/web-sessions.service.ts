import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { AccountsService } from '../accounts/accounts.service';
import { AppConfig } from '../config/app-config';
import { WebSessionProviders } from './providers/web-session-providers';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { SecretBox } from '../common/secret-box';
import { iso } from '../database/columns';
import { WebSessionChatEntity } from './entities/web-session-chat.entity';
import { WebSessionEntity } from './entities/web-session.entity';
import { generateSandboxChats } from './sandbox-chats';
import { isUniqueViolation } from '../database/db-errors';
import { CreateWebSessionInput, WebSessionForSend, WebSessionStatus, WebSessionView } from './web-session.types';
import { UnitOfWork } from '../database/unit-of-work';
import type { AccountId } from '../common/account-id';

/** Web sessions and messaging-bot ids of an account: the operator creates them, senders look them up. */
@Injectable()
export class WebSessionsService {
  constructor(
    @InjectRepository(WebSessionEntity) private readonly sessions: Repository<WebSessionEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly accounts: AccountsService,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly providers: WebSessionProviders,
  ) {}

  /**
   * Contract for the send validator: the session (or bot id) `sessionName` of the account, usable for
   * sending. Throws NOT_FOUND when the account has no such session, SESSION_NOT_READY when it is not
   * `ready` (last known status).
   */
  async findForSend(accountId: AccountId, sessionName: string): Promise<WebSessionForSend> {
    const s = await this.findOwned(accountId, sessionName);
    if (s.status !== 'ready')
      throw new ApiError('SESSION_NOT_READY', `Web session ${s.name} is not ready (status ${s.status})`);
    return { id: s.id, name: s.name, kind: s.kind, status: s.status, provider: s.provider };
  }

  /** The account's session by name; NOT_FOUND for another account's or an unknown one. */
  async findOwned(accountId: AccountId, sessionName: string): Promise<WebSessionEntity> {
    const s =
      typeof sessionName === 'string' && sessionName
        ? await this.sessions.findOneBy({ accountId, name: sessionName })
        : null;
    if (!s) throw ApiError.notFound('Web session');
    return s;
  }

  /** Any account's session by its id: the WAHA hook's URL names it, and the hook's HMAC key proves the caller. */
  async findAnyById(id: string): Promise<WebSessionEntity | null> {
    return this.sessions.findOneBy({ id });
  }

  async setStatus(session: WebSessionEntity, status: WebSessionStatus): Promise<void> {
    if (session.status === status) return;
    await this.sessions.update(
      { id: session.id, accountId: session.accountId },
      { status, updatedAt: this.clock.now() },
    );
    session.status = status;
  }

  async updateStatus(accountId: AccountId, name: string, status: WebSessionStatus): Promise<WebSessionView> {
    const s = await this.findOwned(accountId, name);
    await this.setStatus(s, status);
    return this.map(s, await this.countChats(s));
  }

  /** Operator creation. Sandbox sessions store their chats (120 generated when none are given). */
  async create(accountId: AccountId, input: CreateWebSessionInput): Promise<WebSessionView> {
    if (!(await this.accounts.exists(accountId))) throw ApiError.notFound('Account');
    return this.insert(accountId, input);
  }

  /**
   * The account's web session `name`, created linked (`ready`, with generated chats) when it does not
   * exist: the test-mode controls' session of the calling key's account, on the provider its sessions
   * get (the sandbox in test mode). `created` is false when it existed (as it is, whatever its status).
   */
  async ensureLinked(accountId: AccountId, name: string): Promise<{ webSession: WebSessionView; created: boolean }> {
    const existing = await this.sessions.findOneBy({ accountId, name });
    if (existing) return { webSession: this.map(existing, await this.countChats(existing)), created: false };
    try {
      return { webSession: await this.insert(accountId, { name, status: 'ready' }), created: true };
    } catch (err) {
      // Created meanwhile by a concurrent call: that one is the session.
      if (!(err instanceof ApiError && err.code === 'CONFLICT')) throw err;
      const s = await this.findOwned(accountId, name);
      return { webSession: this.map(s, await this.countChats(s)), created: false };
    }
  }

  private async insert(accountId: AccountId, input: CreateWebSessionInput): Promise<WebSessionView> {
    const provider = this.providers.nameFor(accountId, input.provider);
    if (provider === 'waha' && !this.config.waha.baseUrl)
      throw ApiError.validation('provider waha needs WAHA_BASE_URL to be configured');
    if (provider !== 'sandbox' && input.chats)
      throw ApiError.validation('chats can only be given for sandbox sessions');
    const chats = provider === 'sandbox' ? (input.chats ?? generateSandboxChats()) : [];
    const seen = new Set<string>();
    for (const c of chats) {
      if (seen.has(c.chatId)) throw ApiError.validation(`chats contains chatId ${c.chatId} twice`);
      seen.add(c.chatId);
    }
    const now = this.clock.now();
    const hmacKey = provider === 'waha' ? randomBytes(32).toString('base64url') : null;
    const session = this.sessions.create({
      id: newId('wss'),
      accountId,
      name: input.name,
      kind: input.kind ?? 'web',
      provider,
      providerSession: input.providerSession ?? input.name,
      status: input.status,
      hookSecret: hmacKey ? this.secrets.seal(hmacKey) : null,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await this.uow.transaction(async ({ manager: em }) => {
        await em.insert(WebSessionEntity, session);
        const rows = chats.map((c, position) => ({
          id: newId('wch'),
          sessionId: session.id,
          position,
          chatId: c.chatId,
          kind: c.kind,
          title: c.title,
          phoneNumber: c.phoneNumber ?? null,
        }));
        for (let i = 0; i < rows.length; i += 200) await em.insert(WebSessionChatEntity, rows.slice(i, i + 200));
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ApiError('CONFLICT', `The account already has a web session or bot named ${input.name}`);
      throw err;
    }
    const view = this.map(session, provider === 'sandbox' ? chats.length : null);
    if (hmacKey) view.hook = { url: this.hookUrl(session), hmacKey, algorithm: 'sha512' };
    return view;
  }

  /** The HMAC key of a provider session's webhook, or null for sandbox sessions. */
  hookKey(session: WebSessionEntity): string | null {
    return session.hookSecret ? this.secrets.open(session.hookSecret) : null;
  }

  private hookUrl(session: WebSessionEntity): string {
    return `${this.config.server.publicBaseUrl}/hooks/waha/${session.id}`;
  }

  private async countChats(s: WebSessionEntity): Promise<number | null> {
    return s.provider === 'sandbox'
      ? this.dataSource.getRepository(WebSessionChatEntity).countBy({ sessionId: s.id })
      : null;
  }

  private map(s: WebSessionEntity, chatCount: number | null): WebSessionView {
    return {
      id: s.id,
      name: s.name,
      kind: s.kind,
      provider: s.provider,
      providerSession: s.providerSession,
      status: s.status,
      chatCount,
      createdAt: iso(s.createdAt) as string,
    };
  }
}
