import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { OwnerOnly } from '../../auth/decorators';
import { ApiErrors, ApiSuccess } from '../../common/openapi';
import { CreateErasureDto, ERASURE_EXAMPLE, ErasureResult } from './dto/erasure.dto';
import type { ErasureView } from './erasure.view';
import { ErasuresService } from './erasures.service';

@ApiTags('privacy')
@OwnerOnly()
@Controller('api/v2/privacy/erasures')
export class ErasuresController {
  constructor(private readonly erasures: ErasuresService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'createErasure',
    summary: "Erase one person's data from this account",
    description:
      'Anonymises every message, bulk row, inbound SMS, web-session inbound message, verification and pending webhook ' +
      'delivery of this account that names the recipient: the recipient is replaced by a one-way hash (per account), ' +
      'texts, variables and bodies are removed; counts, costs, statuses and times are kept. Runs in the background: ' +
      'poll the erasure or subscribe to `privacy.erasure.completed`. One erasure per recipient: while it runs a new ' +
      'request answers it; once completed a new request runs it again (same id, counts add up) for rows written since. ' +
      'Owner key only.',
  })
  @ApiSuccess(202, ErasureResult, {
    description: 'The erasure, running (or already completed).',
    example: { success: true, data: { erasure: ERASURE_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR', 'INVALID_RECIPIENT')
  async create(
    @CurrentAuth() auth: AuthContext,
    @Body() body: CreateErasureDto,
  ): Promise<{ success: true; data: { erasure: ErasureView } }> {
    return { success: true, data: { erasure: await this.erasures.request(auth.accountId, body.recipient) } };
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getErasure',
    summary: 'An erasure and its counts',
    description: "Another account's erasure is 404. Owner key only.",
  })
  @ApiParam({ name: 'id', schema: { type: 'string', maxLength: 80 } })
  @ApiSuccess(200, ErasureResult, {
    description: 'The erasure.',
    example: {
      success: true,
      data: { erasure: { ...ERASURE_EXAMPLE, status: 'completed', completedAt: '2026-11-28T18:00:02.000Z' } },
    },
  })
  @ApiErrors('NOT_FOUND')
  async get(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<{ success: true; data: { erasure: ErasureView } }> {
    return { success: true, data: { erasure: await this.erasures.get(auth.accountId, id) } };
  }
}
