import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AccountController } from './account.controller';
import { ApiKeysController } from './api-keys.controller';

/**
 * The calling account's own routes: GET /api/v2/account and /api/v2/api-keys. A feature over the
 * accounts module (which sits below auth, so it cannot hold routes that need auth's decorators).
 */
@Module({
  imports: [AccountsModule],
  controllers: [AccountController, ApiKeysController],
})
export class AccountApiModule {}
