import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { ApiKeysService, IssuedApiKey } from './api-keys.service';
import { AccountEntity } from './entities/account.entity';

export interface AccountFields {
  name?: string;
  phoneVerified?: boolean;
  subscriptionActive?: boolean;
  walletBalance?: number;
  freeMessages?: number;
  planName?: string | null;
  messageQuota?: number;
  messagesUsed?: number;
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
}

@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly apiKeys: ApiKeysService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** Creates an account and its first owner key in one transaction. */
  async create(fields: AccountFields & { name: string }): Promise<{ account: AccountView; apiKey: IssuedApiKey }> {
    const now = this.clock.now();
    return this.dataSource.transaction(async (em) => {
      const account = em.create(AccountEntity, {
        id: newId('acc'),
        name: fields.name,
        phoneVerified: fields.phoneVerified ?? true,
        subscriptionActive: fields.subscriptionActive ?? true,
        walletBalance: fields.walletBalance ?? 0,
        currency: this.config.currency,
        planName: fields.planName ?? null,
        messageQuota: fields.messageQuota ?? 0,
        messagesUsed: fields.messagesUsed ?? 0,
        freeMessages: fields.freeMessages ?? 0,
        createdAt: now,
        updatedAt: now,
      });
      await em.insert(AccountEntity, account);
      const apiKey = await this.apiKeys.issue(account.id, { role: 'owner', permissions: [] }, em);
      return { account: this.map(account), apiKey };
    });
  }

  /** Operator update; absolute values (the ledger moves balances during sending). */
  async update(id: string, fields: AccountFields): Promise<AccountView> {
    const patch: Partial<AccountEntity> = { updatedAt: this.clock.now() };
    for (const k of Object.keys(fields) as (keyof AccountFields)[]) {
      if (fields[k] !== undefined) (patch as Record<string, unknown>)[k] = fields[k];
    }
    const result = await this.accounts.update({ id }, patch);
    if (!result.affected) throw ApiError.notFound('Account');
    return this.get(id);
  }

  async get(id: string): Promise<AccountView> {
    const account = await this.accounts.findOneBy({ id });
    if (!account) throw ApiError.notFound('Account');
    return this.map(account);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.accounts.countBy({ id })) > 0;
  }

  async count(): Promise<number> {
    return this.accounts.count();
  }

  map(a: AccountEntity): AccountView {
    return {
      id: a.id,
      name: a.name,
      walletBalance: a.walletBalance,
      currency: a.currency,
      plan: { name: a.planName, messageQuota: a.messageQuota, messagesUsed: a.messagesUsed },
      freeMessages: a.freeMessages,
      subscriptionActive: !!a.subscriptionActive,
      phoneVerified: !!a.phoneVerified,
      createdAt: new Date(a.createdAt).toISOString(),
    };
  }
}
