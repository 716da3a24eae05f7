import { Body, Controller, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService, AccountView } from '../accounts/accounts.service';
import { ApiKeysService, IssuedApiKey } from '../accounts/api-keys.service';
import { ApiError } from '../common/errors';
import { AdminOnly } from '../auth/decorators';
import { CreateAccountDto, CreateApiKeyDto, UpdateAccountDto } from './dto/account.dto';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/accounts')
export class AdminAccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Create an account with its first owner key (shown once)' })
  async create(@Body() dto: CreateAccountDto): Promise<{ success: true; data: { account: AccountView; apiKey: IssuedApiKey } }> {
    return { success: true, data: await this.accounts.create(dto) };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update account flags, balances and plan' })
  async update(@Param('id') id: string, @Body() dto: UpdateAccountDto): Promise<{ success: true; data: { account: AccountView } }> {
    return { success: true, data: { account: await this.accounts.update(id, dto) } };
  }

  @Post(':id/api-keys')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue an API key (owner has every permission; member gets the listed ones)' })
  async issueKey(@Param('id') id: string, @Body() dto: CreateApiKeyDto): Promise<{ success: true; data: { apiKey: IssuedApiKey } }> {
    if (!(await this.accounts.exists(id))) throw ApiError.notFound('Account');
    return { success: true, data: { apiKey: await this.apiKeys.issue(id, dto.role, dto.permissions ?? []) } };
  }
}
