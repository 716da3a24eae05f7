import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { AccountsService, AccountView } from './accounts.service';

@ApiTags('account')
@Controller('api/v2/account')
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @RequirePermissions('api_keys:read')
  @ApiOperation({ summary: 'Wallet balance, current plan and free-message balance (amounts in integer minor units)' })
  get(@CurrentAuth() auth: AuthContext): { success: true; data: AccountView } {
    // The guard read the account row in this request; no second query.
    return { success: true, data: this.accounts.map(auth.account) };
  }
}
