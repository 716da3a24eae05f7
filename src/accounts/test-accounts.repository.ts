import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountEntity } from './entities/account.entity';
import { testAccountIdOf } from './account-mode';
import type { AccountId } from '../common/account-id';

/**
 * SQL of an account's test twin (account-mode.ts): created on first use with the configured test
 * balance (AccountsService.resetTestBalance restores it). Never quota or free messages: test money is
 * only the twin's wallet.
 */
@Injectable()
export class TestAccountsRepository {
  /**
   * The twin of `liveAccountId`, created if missing. Call inside a transaction that holds the live
   * account row's lock (ApiKeysRepository.lockAccount), so two first test keys create one twin.
   */
  async ensure(em: EntityManager, liveAccountId: AccountId, balance: number, now: number): Promise<AccountId> {
    const id = testAccountIdOf(liveAccountId);
    if ((await em.countBy(AccountEntity, { id })) > 0) return id;
    const live = await em.findOneBy(AccountEntity, { id: liveAccountId });
    if (!live) throw new Error(`Account ${liveAccountId} not found`);
    await em.insert(AccountEntity, {
      id,
      name: live.name,
      phoneVerified: true,
      subscriptionActive: true,
      walletBalance: balance,
      currency: live.currency,
      planName: null,
      messageQuota: 0,
      messagesUsed: 0,
      freeMessages: 0,
      retentionDays: null,
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }
}
