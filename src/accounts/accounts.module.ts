import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsService } from './accounts.service';
import { ApiKeyAuthService } from './api-key-auth.service';
import { TestAccountsRepository } from './test-accounts.repository';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { DemoAccountBootstrap } from './demo-account.bootstrap';
import { LedgerService } from './ledger.service';
import { KeyCallerCache } from './key-caller-cache';
import { LedgerBatch } from './ledger-batch';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';

/**
 * Accounts, API keys (issue, list, revoke, the per-request key lookup) and the balance ledger. Below
 * auth: it imports nothing from auth; its routes for the calling account are in account-api/.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, ApiKeyEntity])],
  providers: [
    AccountsService,
    ApiKeysService,
    ApiKeysRepository,
    TestAccountsRepository,
    ApiKeyAuthService,
    KeyCallerCache,
    DemoAccountBootstrap,
    LedgerService,
    LedgerBatch,
  ],
  exports: [AccountsService, ApiKeysService, ApiKeyAuthService, LedgerService, LedgerBatch],
})
export class AccountsModule {}
