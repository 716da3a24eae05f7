import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { ApiSuccess } from '../common/openapi';
import { AccountsService, AccountView } from '../accounts/accounts.service';
import { ACCOUNT_EXAMPLE, AccountResource } from '../accounts/dto/account.response';

@ApiTags('account')
@Controller('api/v2/account')
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @RequirePermissions('api_keys:read')
  @ApiOperation({
    operationId: 'getAccount',
    summary: 'Read wallet balance, current plan and free-message balance',
    description: 'Amounts are integer minor units. Needs `api_keys:read`.',
  })
  @ApiSuccess(200, AccountResource, { description: 'The account of the calling API key.', example: ACCOUNT_EXAMPLE })
  get(@CurrentAuth() auth: AuthContext): { success: true; data: AccountView } {
    // The guard read the account row in this request; no second query.
    return { success: true, data: this.accounts.map(auth.account) };
  }
}
