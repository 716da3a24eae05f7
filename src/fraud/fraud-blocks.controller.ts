import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { FRAUD_BLOCK_EXAMPLE, FraudBlockPage, FraudBlockResult, ListFraudBlocksQuery } from './dto/fraud-blocks.dto';
import type { FraudBlockView } from './fraud-block.view';
import { FraudBlocksService } from './fraud-blocks.service';

const BlockIdParam = () =>
  ApiParam({
    name: 'id',
    description: 'Block id from the listing or the event.',
    schema: { type: 'string', maxLength: 80 },
  });

@ApiTags('verification')
@OwnerOnly()
@Controller('api/v2/verification/fraud-blocks')
export class FraudBlocksController {
  constructor(private readonly blocks: FraudBlocksService) {}

  @Get()
  @ApiOperation({
    operationId: 'listFraudBlocks',
    summary: "The fraud guard's blocks of destination prefixes, newest first",
    description:
      "The account's blocks (in force and ended) and the platform's blocks in force, which refuse verification codes to a prefix with 429 FRAUD_SUSPECTED. Owner key only.",
  })
  @ApiSuccess(200, FraudBlockPage, {
    description: 'One page of blocks.',
    example: { success: true, data: { blocks: [FRAUD_BLOCK_EXAMPLE], nextCursor: null, hasMore: false } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListFraudBlocksQuery,
  ): Promise<{ success: true; data: { blocks: FraudBlockView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page = await this.blocks.list(auth.accountId, q);
    return { success: true, data: { blocks: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'liftFraudBlock',
    summary: 'Lift a block of this account',
    description:
      "Codes to the prefix go out again at once, and the prefix is judged afresh (its counts are reset). Emits `verification.fraud_unblocked`. A platform block is lifted by the operator only (403); a block no longer in force is 409 INVALID_STATE; another account's block is 404. Owner key only.",
  })
  @BlockIdParam()
  @ApiSuccess(200, FraudBlockResult, {
    description: 'The lifted block.',
    example: {
      success: true,
      data: {
        block: {
          ...FRAUD_BLOCK_EXAMPLE,
          active: false,
          until: '2026-11-28T18:20:00.000Z',
          endedAt: '2026-11-28T18:20:00.000Z',
          endReason: 'lifted',
        },
      },
    },
  })
  @ApiErrors('NOT_FOUND', 'INVALID_STATE')
  async lift(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<{ success: true; data: { block: FraudBlockView } }> {
    return { success: true, data: { block: await this.blocks.liftForAccount(auth.accountId, id, auth.keyId) } };
  }
}
