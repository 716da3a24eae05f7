import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { FRAUD_BLOCK_EXAMPLE, FraudBlockPage, FraudBlockResult, ListFraudBlocksQuery } from './dto/fraud-blocks.dto';
import type { FraudBlockView } from './fraud-block.view';
import { FraudBlocksService } from './fraud-blocks.service';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/fraud-blocks')
export class AdminFraudBlocksController {
  constructor(private readonly blocks: FraudBlocksService) {}

  @Get()
  @ApiOperation({
    operationId: 'adminListFraudBlocks',
    summary: "Every account's and the platform's fraud blocks, newest first",
    description:
      'A platform block (`scope: platform`, reason `many_accounts`) is raised when FRAUD_PLATFORM_ACCOUNTS accounts had the same prefix blocked within the window; it refuses codes to the prefix for every account.',
  })
  @ApiSuccess(200, FraudBlockPage, {
    description: 'One page of blocks.',
    example: { success: true, data: { blocks: [FRAUD_BLOCK_EXAMPLE], nextCursor: null, hasMore: false } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @Query() q: ListFraudBlocksQuery,
  ): Promise<{ success: true; data: { blocks: FraudBlockView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page = await this.blocks.list(undefined, q);
    return { success: true, data: { blocks: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminLiftFraudBlock',
    summary: "Lift any block (an account's or the platform's)",
    description: 'A block no longer in force is 409 INVALID_STATE.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', maxLength: 80 } })
  @ApiSuccess(200, FraudBlockResult, {
    description: 'The lifted block.',
    example: { success: true, data: { block: { ...FRAUD_BLOCK_EXAMPLE, active: false, endReason: 'lifted' } } },
  })
  @ApiErrors('NOT_FOUND', 'INVALID_STATE')
  async lift(@Param('id') id: string): Promise<{ success: true; data: { block: FraudBlockView } }> {
    return { success: true, data: { block: await this.blocks.liftAny(id) } };
  }
}
