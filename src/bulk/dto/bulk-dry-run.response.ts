import { ApiProperty } from '@nestjs/swagger';
import type { DryRunResult } from '../bulk-dry-run.service';

export class BulkDryRunError {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Position in `messages`.' }) index: number;
  @ApiProperty({
    description: 'The code the single-send route would answer with, e.g. INVALID_RECIPIENT.',
    example: 'INVALID_RECIPIENT',
  })
  code: string;
  @ApiProperty({ description: 'What is wrong with the row.' }) error: string;
}

export class BulkDryRunPurposes {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Valid transactional rows.' }) transactional: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Valid marketing rows (the row says `purpose: marketing`, its template’s subType is marketing, or its SMS sender is promotional).',
  })
  marketing: number;
}

export class BulkSmsParts {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Valid local_sms rows sent as GSM-7.' }) gsm7: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Valid local_sms rows sent as UCS-2.' }) ucs2: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'The parts those rows take in all: each part is one billable unit.',
  })
  segments: number;
}

export class BulkCostEstimate {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Billable units the free messages would pay (an SMS: its parts; any other message: 1).',
  })
  free: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Billable units the plan quota would pay.' }) quota: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Minor units of `currency` the wallet would pay.' })
  wallet: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Valid messages the balance cannot pay. The job would pause (`insufficient_balance`) after the window holding the first of them, ' +
      'so every later message counts too; with the first message unpayable, the job would be rejected (INSUFFICIENT_BALANCE).',
  })
  unpaid: number;
  @ApiProperty({ minLength: 3, maxLength: 3, description: 'ISO 4217 code of `wallet`.', example: 'SAR' })
  currency: string;
}

/** `data` of POST /messages/bulk/validate. */
export class BulkDryRunResource implements DryRunResult {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Elements of `messages`.' }) total: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Rows that pass validation.' }) valid: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Rows that fail it (a real job with any is rejected, nothing sent).',
  })
  invalid: number;
  @ApiProperty({
    type: () => BulkDryRunError,
    isArray: true,
    maxItems: 100,
    description: 'The first 100 invalid rows, in row order.',
  })
  errors: BulkDryRunError[];
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Valid rows whose recipient the send policy refuses now (the suppression list, or for marketing the do-not-disturb list). ' +
      'They do not make a job invalid: at dispatch each settles `failed` with RECIPIENT_OPTED_OUT, unpaid. Not counted in channels, sms or estimatedCost.',
  })
  suppressed: number;
  @ApiProperty({
    type: 'integer',
    isArray: true,
    maxItems: 100,
    description: 'Positions in `messages` of the first 100 suppressed rows, in row order.',
    example: [],
  })
  suppressedRows: number[];
  @ApiProperty({ type: () => BulkDryRunPurposes, description: 'Valid rows by purpose (suppressed ones included).' })
  purposes: BulkDryRunPurposes;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    description: 'Valid rows per channel.',
    example: { local_sms: 2, email: 1 },
  })
  channels: Record<string, number>;
  @ApiProperty({ type: () => BulkSmsParts, description: 'Encodings and parts of the valid local_sms rows.' })
  sms: BulkSmsParts;
  @ApiProperty({
    type: () => BulkCostEstimate,
    description:
      'The valid rows paid from the balance as it is now, as a running job pays them: windows of `messagesPerSecond` rows in row order, ' +
      'in each one payment per channel and number of SMS parts (in order of first appearance), each message whole from free messages, then plan quota, then wallet. Nothing is taken.',
  })
  estimatedCost: BulkCostEstimate;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'ceil(valid / messagesPerSecond): sending time at the job’s pace, without waiting behind other jobs of the account.',
  })
  estimatedDurationSeconds: number;
}

export const EXAMPLE_DRY_RUN: { success: true; data: BulkDryRunResource } = {
  success: true,
  data: {
    total: 4,
    valid: 3,
    invalid: 1,
    errors: [{ index: 2, code: 'INVALID_RECIPIENT', error: 'to is not a valid phone number: 12' }],
    suppressed: 0,
    suppressedRows: [],
    purposes: { transactional: 3, marketing: 0 },
    channels: { email: 1, local_sms: 2 },
    sms: { gsm7: 1, ucs2: 1, segments: 3 },
    estimatedCost: { free: 1, quota: 0, wallet: 15, unpaid: 0, currency: 'SAR' },
    estimatedDurationSeconds: 1,
  },
};
