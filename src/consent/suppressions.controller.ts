import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import {
  CreateSuppressionsBody,
  DeleteSuppressionQuery,
  ListSuppressionsQuery,
  Suppression,
  SUPPRESSION_EXAMPLE,
  SuppressionList,
  SuppressionPage,
  SuppressionRemoval,
} from './dto/suppressions.dto';
import { SuppressionPageView, SuppressionsApiService } from './suppressions-api.service';

@ApiTags('suppressions')
@Controller('api/v2/suppressions')
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsApiService) {}

  @Post()
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @ApiOperation({
    operationId: 'addSuppressions',
    summary: 'Add recipients to the suppression list (up to 1,000 a call, idempotent)',
    description:
      'Each entry stops messages to its recipient on its channel (`all` by default): marketing messages for scope `marketing` (the default), every message including verification codes for scope `all`. A send to a suppressed recipient is refused with 400 RECIPIENT_OPTED_OUT before anything is paid; a bulk row is settled `failed` with that code, unpaid. Adding an entry that exists keeps it and sets its scope. All entries are checked before any is written.',
  })
  @ApiSuccess(200, SuppressionList, {
    description: 'The entries as stored (one per recipient and channel).',
    example: { success: true, data: { suppressions: [SUPPRESSION_EXAMPLE] } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async add(
    @CurrentAuth() auth: AuthContext,
    @Body() body: CreateSuppressionsBody,
  ): Promise<{ success: true; data: { suppressions: Suppression[] } }> {
    return {
      success: true,
      data: { suppressions: await this.suppressions.add(auth.accountId, body.entries, auth.keyId) },
    };
  }

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listSuppressions',
    summary: 'The suppression list, oldest first',
    description: 'Filters: `recipient` (normalised like `to`), `channel`, `reason`. Cursor pages.',
  })
  @ApiSuccess(200, SuppressionPage, {
    description: 'One page of entries.',
    example: { success: true, data: { suppressions: [SUPPRESSION_EXAMPLE], nextCursor: null, hasMore: false } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListSuppressionsQuery,
  ): Promise<{ success: true; data: SuppressionPageView }> {
    return { success: true, data: await this.suppressions.list(auth.accountId, q) };
  }

  @Delete(':recipient')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @ApiOperation({
    operationId: 'removeSuppression',
    summary: "Remove a recipient's entries (an opt-in)",
    description:
      'Every entry of the recipient, or only the one of `?channel=`. 404 when the recipient has none. A platform DND listing is not removed by this.',
  })
  @ApiParam({
    name: 'recipient',
    description: 'E.164 number (URL-encoded `+`) or email address.',
    schema: { type: 'string', maxLength: 320 },
  })
  @ApiSuccess(200, SuppressionRemoval, {
    description: 'How many entries went.',
    example: { success: true, data: { removed: 1 } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async remove(
    @CurrentAuth() auth: AuthContext,
    @Param('recipient') recipient: string,
    @Query() q: DeleteSuppressionQuery,
  ): Promise<{ success: true; data: { removed: number } }> {
    return { success: true, data: { removed: await this.suppressions.remove(auth.accountId, recipient, q.channel) } };
  }
}
