import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountController } from './account.controller';
import { AccountsService } from './accounts.service';
import { ApiKeyAuthService } from './api-key-auth.service';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { DemoAccountBootstrap } from './demo-account.bootstrap';
import { LedgerService } from './ledger.service';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';

@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, ApiKeyEntity])],
  controllers: [AccountController, ApiKeysController],
  providers: [AccountsService, ApiKeysService, ApiKeysRepository, ApiKeyAuthService, DemoAccountBootstrap, LedgerService],
  exports: [AccountsService, ApiKeysService, ApiKeyAuthService, LedgerService, TypeOrmModule],
})
export class AccountsModule {}
