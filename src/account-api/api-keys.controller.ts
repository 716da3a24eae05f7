import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, RequirePermissions } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { ApiKeysService, ApiKeyView, MAX_ACTIVE_KEYS } from '../accounts/api-keys.service';
import { CreateApiKeyRequest, ListApiKeysQuery } from './dto/api-key.request';
import {
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyRevoked,
  CREATED_EXAMPLE,
  LIST_EXAMPLE,
  REVOKED_EXAMPLE,
} from './dto/api-key.response';

type Ok<T> = { success: true; data: T };

/** The keys of the calling account: the "API and developers" area of the console calls these. */
@ApiTags('api-keys')
@Controller('api/v2/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @HttpCode(201)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create a member key with the listed permissions, or a test key (the key is shown once)',
    description: `Owner key only (a member key gets 403 FORBIDDEN whatever its permissions). \`mode: test\` creates a \`msk_test_...\` key of the account's test mode (a test owner key with \`role: owner\`); a test key cannot create a live key (403 FORBIDDEN), and \`role: owner\` with a live mode is 400 VALIDATION_ERROR. An account holds at most ${MAX_ACTIVE_KEYS} active keys per mode (409 API_KEY_LIMIT_REACHED).`,
  })
  @ApiSuccess(201, ApiKeyCreated, {
    description: 'Created; `key` appears in this answer only.',
    example: CREATED_EXAMPLE,
  })
  @ApiErrors('VALIDATION_ERROR', 'API_KEY_LIMIT_REACHED', 'FORBIDDEN')
  async create(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: CreateApiKeyRequest,
  ): Promise<Ok<{ apiKey: ApiKeyView & { key: string } }>> {
    return { success: true, data: { apiKey: await this.keys.createKey(auth, dto) } };
  }

  @Get()
  @RequirePermissions('api_keys:read')
  @ApiOperation({
    operationId: 'listApiKeys',
    summary: "The account's active keys, owner keys included, newest first",
    description:
      'Never shows a key or its hash. A live key lists live and test keys (`mode`); a test key lists test keys only. Cursor pagination. Needs `api_keys:read`.',
  })
  @ApiSuccess(200, ApiKeyList, { description: 'One page of active keys.', example: LIST_EXAMPLE })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListApiKeysQuery,
  ): Promise<Ok<{ apiKeys: ApiKeyView[]; nextCursor: string | null; hasMore: boolean }>> {
    const page = await this.keys.list(auth, q);
    return { success: true, data: { apiKeys: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Delete(':id')
  @OwnerOnly()
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke a key of the account; refused (401) from the next request here, within 0.5 s on other replicas',
    description:
      "Owner key only. The calling key cannot revoke itself (409 INVALID_STATE). A revoked, unknown or another account's key is 404 API_KEY_NOT_FOUND, and so is a live key asked by a test key.",
  })
  @ApiParam({
    name: 'id',
    description: 'Key id from GET /api/v2/api-keys.',
    schema: { type: 'string', maxLength: 80 },
    example: 'key_01jd0r8m6f3q9w2k4x7b5c8v1n',
  })
  @ApiSuccess(200, ApiKeyRevoked, { description: 'Revoked.', example: REVOKED_EXAMPLE })
  @ApiErrors('API_KEY_NOT_FOUND', 'INVALID_STATE')
  async revoke(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<Ok<{ id: string; revoked: true; revokedAt: string }>> {
    return { success: true, data: await this.keys.revoke(auth, id) };
  }
}
