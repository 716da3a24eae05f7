import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { CursorPageQuery } from '../../common/dto/cursor-page.query';
import { toBool } from '../../common/query-transforms';
import type { FraudBlockView } from '../fraud-block.view';

export class ListFraudBlocksQuery extends CursorPageQuery {
  @ApiPropertyOptional({ type: 'boolean', description: '`true`: only blocks in force; `false`: only ended ones' })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'active must be true or false' })
  active?: boolean;

  @ApiPropertyOptional({ type: 'string', enum: ['account', 'platform'] })
  @IsOptional()
  @IsIn(['account', 'platform'], { message: 'scope must be account or platform' })
  scope?: 'account' | 'platform';
}

export class FraudBlock implements FraudBlockView {
  @ApiProperty({ example: 'frb_01m7y90kewyw5pyx06wnaqb2' })
  id: string;

  @ApiProperty({
    description:
      '`+`, the country calling code and the first national digits (FRAUD_PREFIX_DIGITS) of the numbers it covers.',
    example: '+9665012',
  })
  prefix: string;

  @ApiProperty({
    enum: ['account', 'platform'],
    description:
      '`platform`: raised by the operator rule (the prefix blocked in many accounts); it covers every account.',
    example: 'account',
  })
  scope: 'account' | 'platform';

  @ApiProperty({
    enum: ['low_conversion', 'velocity', 'many_accounts'],
    description:
      '`low_conversion`: at least FRAUD_MIN_SENDS codes in the window and fewer than FRAUD_MIN_CONVERSION_PERCENT verified; `velocity`: more than FRAUD_NEW_NUMBERS_PER_MINUTE codes a minute to new numbers; `many_accounts`: a platform block.',
    example: 'low_conversion',
  })
  reason: FraudBlockView['reason'];

  @ApiProperty({ description: 'Codes sent to the prefix in the window when the block was raised.', example: 20 })
  sends: number;

  @ApiProperty({ description: 'Of those, codes verified.', example: 0 })
  verified: number;

  @ApiProperty({
    description: 'Platform blocks: accounts that had the prefix blocked in the window; else 1.',
    example: 1,
  })
  accounts: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T18:00:00.000Z' })
  since: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the block ends (or ended, if lifted).',
    example: '2026-11-28T19:00:00.000Z',
  })
  until: string;

  @ApiProperty({
    description: 'In force now: codes to the prefix are refused with 429 FRAUD_SUSPECTED.',
    example: true,
  })
  active: boolean;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  endedAt: string | null;

  @ApiProperty({ type: 'string', enum: ['lifted', 'expired', null], nullable: true, example: null })
  endReason: FraudBlockView['endReason'];
}

export class FraudBlockPage {
  @ApiProperty({ type: [FraudBlock] })
  blocks: FraudBlock[];

  @ApiProperty({ type: 'string', nullable: true, example: null })
  nextCursor: string | null;

  @ApiProperty({ example: false })
  hasMore: boolean;
}

export class FraudBlockResult {
  @ApiProperty({ type: FraudBlock })
  block: FraudBlock;
}

export const FRAUD_BLOCK_EXAMPLE: FraudBlockView = {
  id: 'frb_01m7y90kewyw5pyx06wnaqb2',
  prefix: '+9665012',
  scope: 'account',
  reason: 'low_conversion',
  sends: 20,
  verified: 0,
  accounts: 1,
  since: '2026-11-28T18:00:00.000Z',
  until: '2026-11-28T19:00:00.000Z',
  active: true,
  endedAt: null,
  endReason: null,
};
