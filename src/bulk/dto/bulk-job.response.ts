import { ApiProperty } from '@nestjs/swagger';
import { ApiLivemode } from '../../common/openapi';
import { MESSAGE_PURPOSES } from '../../messaging/validation/validated-message';
import { BULK_JOB_ERROR_CODES, BULK_ROW_ERROR_CODES, BulkJobErrorCode, BulkRowErrorCode } from '../bulk-error-codes';
import { ROW_DELIVERY_STATUSES, ROW_STATUS_FILTERS, RowDeliveryStatus } from '../bulk-job.view';

// Response classes of the bulk routes: what `toJobView` / `toRowView` and the controller return.
// Every property is always sent (null where the view says so).

const JOB_STATUSES = ['accepting', 'validating', 'rejected', 'queued', 'running', 'paused', 'completed', 'cancelled'];
const PAUSE_REASONS = ['insufficient_balance', 'provider_rate_limit', 'user'];

export const EXAMPLE_JOB: Record<string, unknown> & { id: string } = {
  id: 'bulk_01jd8x2k4m7q9r3t5v8w2y4z',
  name: 'November newsletter',
  status: 'running',
  messagesPerSecond: 5,
  pauseReason: null,
  quietUntil: null,
  total: 3,
  validatedCount: 3,
  counts: { pending: 1, sent: 2, failed: 0, cancelled: 0 },
  delivery: { delivered: 1, read: 0, undelivered: 0 },
  errorCode: null,
  errorMessage: null,
  createdAt: '2024-11-19T10:15:00.000Z',
  livemode: true,
};

export class BulkJobCounts {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Rows still to send (including rows being sent).' })
  pending: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) sent: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) failed: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) cancelled: number;
}

export class BulkJobDelivery {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Messages of the job a receipt says reached the recipient (status `delivered` or `read`).',
  })
  delivered: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Messages the recipient read (status `read`; also counted in `delivered`).',
  })
  read: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Sent messages a receipt failed (`failed` with errorCode UNDELIVERED, EXPIRED or REJECTED_BY_CARRIER); also counted in `counts.sent`.',
  })
  undelivered: number;
}

export class BulkJobResource {
  @ApiProperty({ example: EXAMPLE_JOB.id }) id: string;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 200 }) name: string | null;
  @ApiProperty({
    enum: JOB_STATUSES,
    description:
      '`accepting` while the upload is stored, `validating` until every row passed, then `queued`/`running`; ' +
      '`rejected` (see errorCode) when a row is invalid or the upload broke off; `paused`, `completed`, `cancelled`.',
  })
  status: string;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 10,
    description: '1 to 10 once accepted (0 while `accepting`).',
  })
  messagesPerSecond: number;
  @ApiProperty({
    type: 'string',
    enum: [...PAUSE_REASONS, null],
    nullable: true,
    description: 'Set only while `paused`.',
  })
  pauseReason: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      "Marketing rows wait for the account's sending hours (GET /api/v2/account/compliance, recipient's local time): the job's pending marketing rows stay `pending` and go out from this time; its transactional rows kept going. Null otherwise.",
  })
  quietUntil: string | null;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Rows of the job.' }) total: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Rows that passed validation so far.' })
  validatedCount: number;
  @ApiProperty({ type: () => BulkJobCounts }) counts: BulkJobCounts;
  @ApiProperty({
    type: () => BulkJobDelivery,
    description:
      'What delivery receipts said about the sent messages so far (channels without receipts stay at 0). Receipts can arrive after the job completed.',
  })
  delivery: BulkJobDelivery;
  @ApiProperty({
    type: 'string',
    enum: [...BULK_JOB_ERROR_CODES, null],
    nullable: true,
    description:
      'Why the job was rejected: a row was invalid (VALIDATION_FAILED, errorMessage names it), no message could be paid, or the upload broke off.',
  })
  errorCode: BulkJobErrorCode | null;
  @ApiProperty({ type: 'string', nullable: true }) errorMessage: string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
  @ApiLivemode() livemode: boolean;
}

/** 202 of POST /messages/bulk: the job's fields at the top level, next to `success`. */
export class BulkJobAccepted extends BulkJobResource {
  @ApiProperty({ type: 'boolean', enum: [true] }) success: true;
}

/** `{ success, job }` of GET /bulk/{jobId} and the state-change routes. */
export class BulkJobEnvelope {
  @ApiProperty({ type: 'boolean', enum: [true] }) success: true;
  @ApiProperty({ type: () => BulkJobResource }) job: BulkJobResource;
}

export class BulkRetryResult {
  @ApiProperty({ type: 'boolean', enum: [true] }) success: true;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Failed rows moved back to `pending`.' }) retried: number;
  @ApiProperty({ type: () => BulkJobResource }) job: BulkJobResource;
}

export class BulkJobPage {
  @ApiProperty({ type: () => BulkJobResource, isArray: true }) jobs: BulkJobResource[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last page.',
  })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}

export class BulkRowResource {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Position in the request’s messages array.' }) index: number;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The element’s `to` as sent (null when absent, e.g. chat channels).',
  })
  to: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'The element’s `channel` as sent.' }) channel:
    string | null;
  @ApiProperty({
    enum: MESSAGE_PURPOSES,
    description:
      '`marketing` once validation found the row is marketing (its `purpose`, its template’s subType or its promotional sender); `transactional` otherwise, and for rows not yet validated.',
    example: 'transactional',
  })
  purpose: string;
  @ApiProperty({
    enum: ROW_STATUS_FILTERS,
    description: '`pending` includes rows being sent; `invalid` rows failed validation.',
  })
  status: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The message of a sent or failed row (see GET /messages/{id}).',
  })
  messageId: string | null;
  @ApiProperty({
    type: 'string',
    enum: [...BULK_ROW_ERROR_CODES, null],
    nullable: true,
    description: 'Invalid rows: the validation code; failed rows: the code their message failed with.',
  })
  errorCode: BulkRowErrorCode | null;
  @ApiProperty({ type: 'string', nullable: true }) errorMessage: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) sentAt: string | null;
  @ApiProperty({
    type: 'string',
    enum: ['gsm7', 'ucs2', null],
    nullable: true,
    description: 'local_sms rows with a message (sent or failed): its encoding; null otherwise.',
    example: 'gsm7',
  })
  encoding: string | null;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    nullable: true,
    description: 'local_sms rows with a message (sent or failed): its parts, each one billable unit; null otherwise.',
    example: 1,
  })
  segments: number | null;
  @ApiProperty({
    type: 'string',
    enum: [...ROW_DELIVERY_STATUSES, null],
    nullable: true,
    description:
      "Sent rows: what delivery receipts said of the message — `sent` until a receipt arrives (and for channels without receipts), `delivered`, `read`, or `undelivered` (the carrier or device did not get it; see the message's errorCode); null for rows not sent.",
    example: 'delivered',
  })
  deliveryStatus: RowDeliveryStatus | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Sent rows: when the message was delivered (also set for read messages); null otherwise.',
  })
  deliveredAt: string | null;
  @ApiLivemode() livemode: boolean;
}

export class BulkRowPage {
  @ApiProperty() jobId: string;
  @ApiProperty({ type: () => BulkRowResource, isArray: true }) rows: BulkRowResource[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` (with the same status) for the next page; null on the last page.',
  })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}
