import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AdminAccountsController } from './admin-accounts.controller';

/** Operator API under /admin/v1 (Bearer ADMIN_TOKEN). Feature modules add their own admin controllers. */
@Module({
  imports: [AccountsModule],
  controllers: [AdminAccountsController],
})
export class AdminModule {}
