import { Inject, Injectable } from '@nestjs/common';
import { AUDIT_TRAIL, AuditTrail, AuditValue } from '../common/audit/audit-trail';
import { InjectRepository } from '@nestjs/typeorm';
import { And, FindOperator, LessThan, Like, MoreThan, Not, Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { CursorCodec, Page } from '../common/cursor';
import { LedgerService } from './ledger.service';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { ApiKeysService, IssuedApiKey } from './api-keys.service';
import { AccountEntity } from './entities/account.entity';
import { UnitOfWork } from '../database/unit-of-work';
import { isLiveAccount, liveAccountIdOf, TEST_ACCOUNT_ID_LIKE } from './account-mode';
import { KeyCallerCache } from './key-caller-cache';
import type { AccountId } from '../common/account-id';

export interface AccountFields {
  name?: string;
  phoneVerified?: boolean;
  subscriptionActive?: boolean;
  walletBalance?: number;
  freeMessages?: number;
  planName?: string | null;
  messageQuota?: number;
  messagesUsed?: number;
  /** Operator only: null returns the account to the default retention. */
  retentionDays?: number | null;
}

/** The account as the API shows it. Amounts are integer minor units. */
export interface AccountView {
  id: string;
  name: string;
  walletBalance: number;
  currency: string;
  plan: { name: string | null; messageQuota: number; messagesUsed: number };
  freeMessages: number;
  subscriptionActive: boolean;
  phoneVerified: boolean;
  createdAt: string;
  /** False when a test key reads it: then `walletBalance` is the test balance. */
  livemode: boolean;
}

/** The account as an operator sees it: the owner's view and what only the operator sets. */
export interface OperatorAccountView extends AccountView {
  /** Days the account's data is kept (RETENTION_*_DAYS apply when null). */
  retentionDays: number | null;
}

/** An account's own retention (null: the RETENTION_*_DAYS defaults), as the retention purger reads it. */
export interface AccountRetention {
  accountId: AccountId;
  retentionDays: number | null;
}

const ACCOUNTS_CURSOR = 'admin:accounts';

/** Every id but a test twin's (the pattern is not an account id, hence the cast). */
const notTestTwin = (): FindOperator<AccountId> => Not(Like(TEST_ACCOUNT_ID_LIKE)) as FindOperator<AccountId>;

@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    private readonly uow: UnitOfWork,
    private readonly apiKeys: ApiKeysService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly ledger: LedgerService,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
    private readonly callers: KeyCallerCache,
  ) {}

  /** Creates an account and its first owner key in one transaction. */
  async create(
    fields: AccountFields & { name: string },
  ): Promise<{ account: OperatorAccountView; apiKey: IssuedApiKey }> {
    const now = this.clock.now();
    return this.uow.transaction(async ({ manager: em }) => {
      const account = em.create(AccountEntity, {
        id: newId('acc'),
        name: fields.name,
        phoneVerified: fields.phoneVerified ?? true,
        subscriptionActive: fields.subscriptionActive ?? true,
        walletBalance: fields.walletBalance ?? 0,
        currency: this.config.billing.currency,
        planName: fields.planName ?? null,
        messageQuota: fields.messageQuota ?? 0,
        messagesUsed: fields.messagesUsed ?? 0,
        freeMessages: fields.freeMessages ?? 0,
        retentionDays: this.checkedRetention(fields.retentionDays) ?? null,
        createdAt: now,
        updatedAt: now,
      });
      await em.insert(AccountEntity, account);
      const apiKey = await this.apiKeys.issue(account.id, { role: 'owner', permissions: [] }, em);
      return { account: this.mapForOperator(account), apiKey };
    });
  }

  /** Operator update; absolute values (the ledger moves balances during sending). */
  async update(id: AccountId, fields: AccountFields): Promise<OperatorAccountView> {
    if (!isLiveAccount(id)) throw ApiError.notFound('Account');
    this.checkedRetention(fields.retentionDays);
    const patch: Partial<AccountEntity> = { updatedAt: this.clock.now() };
    for (const k of Object.keys(fields) as (keyof AccountFields)[]) {
      if (fields[k] !== undefined) (patch as Record<string, unknown>)[k] = fields[k];
    }
    await this.uow.transaction(async ({ manager }) => {
      const before = await manager.findOneBy(AccountEntity, { id });
      if (!before) throw ApiError.notFound('Account');
      await manager.update(AccountEntity, { id }, patch);
      await this.audited(before, fields);
      // Subscription, verified phone, balances: this replica's key lookups see them from the next request.
      this.uow.afterCommit(() => this.callers.forgetAccount(id));
    });
    return this.getForOperator(id);
  }

  /** The operator's changes to balance, plan and retention, in the trail (what changed, before and after). */
  private async audited(before: AccountEntity, fields: AccountFields): Promise<void> {
    const diff = (keys: (keyof AccountFields)[]): Record<string, AuditValue> => {
      const out: Record<string, AuditValue> = {};
      for (const k of keys) {
        const after = fields[k];
        if (after !== undefined && after !== before[k]) out[k] = { before: before[k] ?? null, after };
      }
      return out;
    };
    const balance = diff(['walletBalance']);
    const plan = diff(['planName', 'messageQuota', 'messagesUsed', 'freeMessages', 'subscriptionActive']);
    const accountId = before.id;
    if (Object.keys(balance).length)
      await this.audit.record({ accountId, type: 'account.balance_changed', changes: balance });
    if (Object.keys(plan).length) await this.audit.record({ accountId, type: 'account.plan_changed', changes: plan });
    const retention = diff(['retentionDays']);
    if (Object.keys(retention).length)
      await this.audit.record({ accountId, type: 'account.retention_changed', changes: retention });
  }

  async get(id: AccountId): Promise<AccountView> {
    const account = await this.accounts.findOneBy({ id });
    if (!account) throw ApiError.notFound('Account');
    return this.map(account);
  }

  async getForOperator(id: AccountId): Promise<OperatorAccountView> {
    const account = isLiveAccount(id) ? await this.accounts.findOneBy({ id }) : null;
    if (!account) throw ApiError.notFound('Account');
    return this.mapForOperator(account);
  }

  /** A retention an operator may set: within RETENTION_ACCOUNT_MAX_DAYS (400 VALIDATION_ERROR past it). */
  private checkedRetention(days: number | null | undefined): number | null | undefined {
    const max = this.config.retention.accountMaxDays;
    if (typeof days === 'number' && days > max)
      throw ApiError.validation(`retentionDays must be at most ${max} (RETENTION_ACCOUNT_MAX_DAYS)`);
    return days;
  }

  /** A live account (the operator never addresses an account's test twin directly). */
  async exists(id: AccountId): Promise<boolean> {
    return isLiveAccount(id) && (await this.accounts.countBy({ id })) > 0;
  }

  /** A page of every account (test accounts too) after `after` in id order, with its own retention: the purger's list. */
  async retentionPage(after: AccountId, limit: number): Promise<AccountRetention[]> {
    const rows = await this.accounts.find({
      select: { id: true, retentionDays: true },
      where: { id: MoreThan(after) },
      order: { id: 'ASC' },
      take: limit,
    });
    return rows.map((a) => ({ accountId: a.id, retentionDays: a.retentionDays ?? null }));
  }

  /** Every account (start-up: is this a fresh install?). */
  async countAll(): Promise<number> {
    return this.accounts.count();
  }

  /** Operator listing: every account, newest first; the cursor is the last id seen. */
  async listForOperator(q: { cursor?: string; limit?: number }): Promise<Page<OperatorAccountView>> {
    const after = this.cursors.decode<AccountId>(ACCOUNTS_CURSOR, q.cursor);
    if (after !== null && typeof after !== 'string') throw ApiError.validation('cursor is invalid');
    const limit = q.limit ?? 50;
    const rows = await this.accounts.find({
      // An account's test twin is part of that account, not an account of its own.
      where: { id: after ? And(LessThan(after), notTestTwin()) : notTestTwin() },
      order: { id: 'DESC' },
      take: limit + 1,
    });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    return {
      items: page.map((a) => this.mapForOperator(a)),
      hasMore,
      nextCursor: hasMore ? this.cursors.encode(ACCOUNTS_CURSOR, page[page.length - 1].id) : null,
    };
  }

  /** The owner's reset of a test mode's wallet to TEST_MODE_BALANCE (in the trail); the account after it. */
  async resetTestBalance(testAccountId: AccountId): Promise<AccountView> {
    if (isLiveAccount(testAccountId)) throw ApiError.notFound('Account');
    const balance = this.config.testMode.balance;
    await this.uow.transaction(async ({ manager }) => {
      await manager.update(
        AccountEntity,
        { id: testAccountId },
        { walletBalance: balance, updatedAt: this.clock.now() },
      );
      this.uow.afterCommit(() => this.callers.forgetAccount(testAccountId));
      await this.audit.record({
        accountId: testAccountId,
        type: 'account.balance_changed',
        changes: { testBalanceReset: balance },
      });
    });
    return this.get(testAccountId);
  }

  /** Operator top-up: adds `amount` minor units to the wallet atomically and answers the account after it. */
  async topUp(id: AccountId, amount: number): Promise<OperatorAccountView> {
    if (!isLiveAccount(id)) throw ApiError.notFound('Account');
    await this.uow.transaction(async () => {
      if (!(await this.ledger.credit(id, amount))) {
        if (!(await this.exists(id))) throw ApiError.notFound('Account');
        throw ApiError.validation('The wallet balance would exceed the largest supported amount');
      }
      await this.audit.record({ accountId: id, type: 'account.balance_changed', changes: { topUp: amount } });
    });
    return this.getForOperator(id);
  }

  mapForOperator(a: AccountEntity): OperatorAccountView {
    return { ...this.map(a), retentionDays: a.retentionDays ?? null };
  }

  map(a: AccountEntity): AccountView {
    return {
      id: liveAccountIdOf(a.id),
      name: a.name,
      walletBalance: a.walletBalance,
      currency: a.currency,
      plan: { name: a.planName, messageQuota: a.messageQuota, messagesUsed: a.messagesUsed },
      freeMessages: a.freeMessages,
      subscriptionActive: !!a.subscriptionActive,
      phoneVerified: !!a.phoneVerified,
      createdAt: new Date(a.createdAt).toISOString(),
      livemode: isLiveAccount(a.id),
    };
  }
}
