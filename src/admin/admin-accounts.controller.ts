import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService, OperatorAccountView as AccountView } from '../accounts/accounts.service';
import { ApiKeysService, IssuedApiKey } from '../accounts/api-keys.service';
import { ApiError } from '../common/errors';
import { AdminOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import {
  ADMIN_ACCOUNT_EXAMPLE,
  AdminAccountCreated,
  AdminAccountPage,
  AdminAccountUpdated,
  AdminApiKeyIssued,
  ISSUED_KEY_EXAMPLE,
} from './dto/admin-account.response';
import { CreateAccountDto, CreateApiKeyDto, ListAccountsQuery, TopUpDto, UpdateAccountDto } from './dto/account.dto';
import { accountIdOf } from '../common/account-id';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/accounts')
export class AdminAccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'adminListAccounts', summary: 'Every account, newest first (cursor paging)' })
  @ApiSuccess(200, AdminAccountPage, {
    description: 'One page of accounts',
    example: { success: true, data: { accounts: [ADMIN_ACCOUNT_EXAMPLE], nextCursor: null, hasMore: false } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @Query() q: ListAccountsQuery,
  ): Promise<{ success: true; data: { accounts: AccountView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page = await this.accounts.listForOperator(q);
    return { success: true, data: { accounts: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Get(':id')
  @ApiOperation({ operationId: 'adminGetAccount', summary: 'One account as its owner sees it (GET /api/v2/account)' })
  @ApiSuccess(200, AdminAccountUpdated, {
    description: 'The account',
    example: { success: true, data: { account: ADMIN_ACCOUNT_EXAMPLE } },
  })
  @ApiErrors('NOT_FOUND')
  async get(@Param('id') id: string): Promise<{ success: true; data: { account: AccountView } }> {
    return { success: true, data: { account: await this.accounts.getForOperator(accountIdOf(id)) } };
  }

  @Post(':id/top-up')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminTopUpAccount',
    summary: 'Add to the wallet balance (atomic: a send debiting at the same moment is never undone)',
    description:
      'PATCH walletBalance sets an absolute value; this adds `amount` minor units to whatever the balance is when it runs.',
  })
  @ApiSuccess(200, AdminAccountUpdated, {
    description: 'The account after the top-up',
    example: { success: true, data: { account: { ...ADMIN_ACCOUNT_EXAMPLE, walletBalance: 150000 } } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async topUp(
    @Param('id') id: string,
    @Body() dto: TopUpDto,
  ): Promise<{ success: true; data: { account: AccountView } }> {
    return { success: true, data: { account: await this.accounts.topUp(accountIdOf(id), dto.amount) } };
  }

  @Post()
  @ApiOperation({
    operationId: 'adminCreateAccount',
    summary: 'Create an account with its first owner key (shown once)',
  })
  @ApiSuccess(201, AdminAccountCreated, {
    description: 'Created',
    example: { success: true, data: { account: ADMIN_ACCOUNT_EXAMPLE, apiKey: ISSUED_KEY_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async create(
    @Body() dto: CreateAccountDto,
  ): Promise<{ success: true; data: { account: AccountView; apiKey: IssuedApiKey } }> {
    return { success: true, data: await this.accounts.create(dto) };
  }

  @Patch(':id')
  @ApiOperation({ operationId: 'adminUpdateAccount', summary: 'Update account flags, balances, plan and retention' })
  @ApiSuccess(200, AdminAccountUpdated, {
    description: 'Updated',
    example: { success: true, data: { account: ADMIN_ACCOUNT_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async update(
    @Param('id') id: string,
    @Body() dto: UpdateAccountDto,
  ): Promise<{ success: true; data: { account: AccountView } }> {
    return { success: true, data: { account: await this.accounts.update(accountIdOf(id), dto) } };
  }

  @Post(':id/api-keys')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'adminIssueApiKey',
    summary:
      'Issue an API key (owner has every permission; member gets the listed ones); `mode: test` issues a test key',
  })
  @ApiSuccess(201, AdminApiKeyIssued, {
    description: 'Issued (the key is shown once)',
    example: {
      success: true,
      data: { apiKey: { ...ISSUED_KEY_EXAMPLE, role: 'member', permissions: ['messages:create', 'messages:read'] } },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async issueKey(
    @Param('id') id: string,
    @Body() dto: CreateApiKeyDto,
  ): Promise<{ success: true; data: { apiKey: IssuedApiKey } }> {
    if (!(await this.accounts.exists(accountIdOf(id)))) throw ApiError.notFound('Account');
    return {
      success: true,
      data: {
        apiKey: await this.apiKeys.issue(accountIdOf(id), {
          role: dto.role,
          permissions: dto.permissions ?? [],
          mode: dto.mode,
        }),
      },
    };
  }
}
