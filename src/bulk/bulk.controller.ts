import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { BulkIntakeService } from './bulk-intake.service';
import { BulkJobsService, JobPage, RowPage } from './bulk-jobs.service';
import { BulkJobView } from './bulk-job.view';
import { ApiErrors, ApiStreamedBody, ApiSuccess } from '../common/openapi';
import { MAX_KEY } from './bulk-request-rules';
import { BulkJobAccepted, BulkJobEnvelope, BulkJobPage, BulkRetryResult, BulkRowPage, EXAMPLE_JOB } from './dto/bulk-job.response';
import { ListBulkJobsQuery, ListBulkRowsQuery } from './dto/bulk-queries.dto';
import { CreateBulkJobBody, EXAMPLE_BULK_BODY } from './dto/create-bulk-job.body';

type JobBody = { success: true; job: BulkJobView };

const JobIdParam = () => ApiParam({ name: 'jobId', schema: { type: 'string' }, description: 'The `id` of the creation response.', example: EXAMPLE_JOB.id });
const jobBody = (over: Record<string, unknown>) => ({ success: true, job: { ...EXAMPLE_JOB, ...over } });

@ApiTags('bulk')
@Controller('api/v2/messages/bulk')
export class BulkController {
  constructor(
    private readonly intake: BulkIntakeService,
    private readonly jobs: BulkJobsService,
  ) {}

  @Post()
  @HttpCode(202)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'createBulkJob',
    summary: 'Queue a bulk job',
    description:
      'Stores the messages and queues a job that validates every row, then sends at `messagesPerSecond`. The body is streamed ' +
      '(no size limit). The same Idempotency-Key with the same `name`, `messagesPerSecond` and `messages` (within the replay ' +
      'window) returns the existing job; with a different body 409 IDEMPOTENCY_CONFLICT. An invalid row rejects the whole job ' +
      '(status `rejected`, see errorCode) with nothing sent. Messages are paid as they are sent; the job pauses ' +
      '(`insufficient_balance`) when the account cannot pay.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: true, schema: { type: 'string', minLength: 1, maxLength: MAX_KEY }, description: `1 to ${MAX_KEY} characters; wins over a body idempotencyKey (which is used only when the header is absent).` })
  @ApiBody({ type: CreateBulkJobBody, examples: { newsletter: { summary: 'Two messages, five per second', value: EXAMPLE_BULK_BODY } } })
  @ApiSuccess(202, BulkJobAccepted, {
    bare: true,
    description: 'The job, `validating` (or the existing job of this Idempotency-Key)',
    example: { success: true, ...EXAMPLE_JOB, name: 'November newsletter', status: 'validating', total: 2, validatedCount: 0, counts: { pending: 2, sent: 0, failed: 0, cancelled: 0 } },
  })
  @ApiStreamedBody()
  @ApiErrors('INVALID_REQUEST_BODY', 'IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_INVALID', 'MESSAGES_PER_SECOND_INVALID', 'MESSAGES_REQUIRED', 'INVALID_MESSAGE', 'SUBSCRIPTION_INACTIVE', 'IDEMPOTENCY_CONFLICT')
  async create(@CurrentAuth() auth: AuthContext, @Req() req: Request): Promise<{ success: true } & BulkJobView> {
    return { success: true, ...(await this.intake.accept(auth, req)) };
  }

  // BulkModule is imported before MessagingModule, so this route precedes GET /api/v2/messages/:id.
  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({ operationId: 'listBulkJobs', summary: 'List bulk jobs, newest first' })
  @ApiSuccess(200, BulkJobPage, { description: 'One page of jobs', example: { success: true, data: { jobs: [EXAMPLE_JOB], nextCursor: null, hasMore: false } } })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentAuth() auth: AuthContext, @Query() q: ListBulkJobsQuery): Promise<{ success: true; data: JobPage }> {
    return { success: true, data: await this.jobs.list(auth.accountId, q) };
  }

  @Get(':jobId')
  @RequirePermissions('messages:read')
  @ApiOperation({ operationId: 'getBulkJob', summary: 'Read a bulk job', description: 'Poll until the job settles: `queued`, `running`, `rejected`, `paused`, `completed` or `cancelled`.' })
  @JobIdParam()
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The job', example: jobBody({}) })
  @ApiErrors('JOB_NOT_FOUND')
  async get(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.get(auth.accountId, jobId) };
  }

  @Get(':jobId/rows')
  @RequirePermissions('messages:read')
  @ApiOperation({ operationId: 'listBulkJobRows', summary: 'Per-row report of a job, in row order (status filter, cursor)' })
  @JobIdParam()
  @ApiSuccess(200, BulkRowPage, {
    description: 'One page of rows',
    example: {
      success: true,
      data: {
        jobId: EXAMPLE_JOB.id,
        rows: [
          { index: 0, to: '+14155550101', channel: 'local_sms', status: 'sent', messageId: 'msg_01jd8x2m0a1b2c3d4e5f6g7h', errorCode: null, errorMessage: null, sentAt: '2024-11-19T10:15:02.000Z' },
          { index: 1, to: 'ana@example.com', channel: 'email', status: 'pending', messageId: null, errorCode: null, errorMessage: null, sentAt: null },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'JOB_NOT_FOUND')
  async rows(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string, @Query() q: ListBulkRowsQuery): Promise<{ success: true; data: RowPage }> {
    return { success: true, data: await this.jobs.rows(auth.accountId, jobId, q) };
  }

  @Post(':jobId/retry-failed')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'retryFailedBulkRows',
    summary: 'Send the failed rows of a job again',
    description: 'Moves every failed row back to `pending` and the job to `queued`. 402 (rows untouched) when the account cannot pay for one message.',
  })
  @JobIdParam()
  @ApiSuccess(200, BulkRetryResult, {
    bare: true,
    description: 'How many rows were moved, and the job',
    example: { success: true, retried: 1, job: { ...EXAMPLE_JOB, status: 'queued', counts: { pending: 1, sent: 2, failed: 0, cancelled: 0 } } },
  })
  @ApiErrors('JOB_NOT_FOUND', 'NOTHING_TO_RETRY', 'INSUFFICIENT_BALANCE')
  async retryFailed(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<{ success: true; retried: number; job: BulkJobView }> {
    return { success: true, ...(await this.jobs.retryFailed(auth.accountId, jobId)) };
  }

  @Post(':jobId/pause')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({ operationId: 'pauseBulkJob', summary: 'Pause a queued or running job', description: 'Also turns an automatic pause (balance, provider rate limit) into a user pause.' })
  @JobIdParam()
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The paused job', example: jobBody({ status: 'paused', pauseReason: 'user' }) })
  @ApiErrors('JOB_NOT_FOUND', 'INVALID_JOB_STATE')
  async pause(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.pause(auth.accountId, jobId) };
  }

  @Post(':jobId/resume')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({ operationId: 'resumeBulkJob', summary: 'Resume a paused job', description: 'A job paused for its balance resumes only when the account can pay for the next message (402 otherwise).' })
  @JobIdParam()
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The job, queued again', example: jobBody({ status: 'queued' }) })
  @ApiErrors('JOB_NOT_FOUND', 'INVALID_JOB_STATE', 'INSUFFICIENT_BALANCE')
  async resume(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.resume(auth.accountId, jobId) };
  }

  @Post(':jobId/cancel')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({ operationId: 'cancelBulkJob', summary: 'Cancel a job', description: 'Its pending rows become `cancelled`; rows already sent stay sent.' })
  @JobIdParam()
  @ApiSuccess(200, BulkJobEnvelope, {
    bare: true,
    description: 'The cancelled job',
    example: jobBody({ status: 'cancelled', counts: { pending: 0, sent: 2, failed: 0, cancelled: 1 } }),
  })
  @ApiErrors('JOB_NOT_FOUND', 'INVALID_JOB_STATE')
  async cancel(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.cancel(auth.accountId, jobId) };
  }
}
