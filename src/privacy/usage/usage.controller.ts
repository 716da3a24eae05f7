import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { RequirePermissions } from '../../auth/decorators';
import { ApiErrors, ApiSuccess } from '../../common/openapi';
import { AccountUsage, USAGE_EXAMPLE, UsageQuery } from './dto/usage.dto';
import { UsageService } from './usage.service';

@ApiTags('account')
@Controller('api/v2/account/usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'getAccountUsage',
    summary: 'Messages, SMS parts and cost per day or month, kept after the messages are purged',
    description:
      'Every settled message (sent, delivered, read, failed, cancelled) is counted on the UTC day it was accepted, ' +
      'by paying source (free messages, plan quota, wallet) and channel; a refunded message counts nothing. Counted ' +
      'within USAGE_ROLLUP_TICK_MS of settling. Usage records are never purged. `from` and `to` are UTC days, both ' +
      'included (default: the last 30 days); at most 400 days with `granularity=day`. Needs `messages:read` (an owner key has it).',
  })
  @ApiSuccess(200, AccountUsage, { description: 'The usage of the range.', example: USAGE_EXAMPLE })
  @ApiErrors('VALIDATION_ERROR')
  async get(@CurrentAuth() auth: AuthContext, @Query() q: UsageQuery): Promise<{ success: true; data: AccountUsage }> {
    return { success: true, data: await this.usage.usage(auth.accountId, auth.account.currency, q) };
  }
}
