import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountController } from './account.controller';
import { AccountsService } from './accounts.service';
import { ApiKeysService } from './api-keys.service';
import { DemoAccountBootstrap } from './demo-account.bootstrap';
import { LedgerService } from './ledger.service';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';

@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, ApiKeyEntity])],
  controllers: [AccountController],
  providers: [AccountsService, ApiKeysService, DemoAccountBootstrap, LedgerService],
  exports: [AccountsService, ApiKeysService, LedgerService, TypeOrmModule],
})
export class AccountsModule {}
