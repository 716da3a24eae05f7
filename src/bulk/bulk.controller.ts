import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { BulkIntakeService } from './bulk-intake.service';
import { BulkJobsService, JobPage, RowPage } from './bulk-jobs.service';
import { BulkJobStream, EVENTS_POLL_MS } from './bulk-job-stream';
import { BulkJobView } from './bulk-job.view';
import { ApiErrors, ApiFileSuccess, ApiStreamedBody, ApiSuccess } from '../common/openapi';
import { requestIdOf } from '../common/request-id';
import { BulkDryRunService, DryRunResult } from './bulk-dry-run.service';
import { BulkRowExport } from './bulk-row-export.service';
import { BulkDryRunResource, EXAMPLE_DRY_RUN } from './dto/bulk-dry-run.response';
import { MAX_KEY } from './bulk-request-rules';
import {
  BulkJobAccepted,
  BulkJobEnvelope,
  BulkJobPage,
  BulkRetryResult,
  BulkRowPage,
  EXAMPLE_JOB,
} from './dto/bulk-job.response';
import { ListBulkJobsQuery, ListBulkRowsQuery } from './dto/bulk-queries.dto';
import { CreateBulkJobBody, EXAMPLE_BULK_BODY } from './dto/create-bulk-job.body';

type JobBody = { success: true; job: BulkJobView };

const JobIdParam = () =>
  ApiParam({
    name: 'jobId',
    schema: { type: 'string' },
    description: 'The `id` of the creation response.',
    example: EXAMPLE_JOB.id,
  });
const jobBody = (over: Record<string, unknown>) => ({ success: true, job: { ...EXAMPLE_JOB, ...over } });

@ApiTags('bulk')
@Controller('api/v2/messages/bulk')
export class BulkController {
  constructor(
    private readonly intake: BulkIntakeService,
    private readonly jobs: BulkJobsService,
    private readonly dryRun: BulkDryRunService,
    private readonly rowExport: BulkRowExport,
    private readonly jobEvents: BulkJobStream,
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
  @ApiHeader({
    name: 'Idempotency-Key',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY },
    description: `1 to ${MAX_KEY} characters; wins over a body idempotencyKey (which is used only when the header is absent).`,
  })
  @ApiBody({
    type: CreateBulkJobBody,
    examples: { newsletter: { summary: 'Two messages, five per second', value: EXAMPLE_BULK_BODY } },
  })
  @ApiSuccess(202, BulkJobAccepted, {
    bare: true,
    description: 'The job, `validating` (or the existing job of this Idempotency-Key)',
    example: {
      success: true,
      ...EXAMPLE_JOB,
      name: 'November newsletter',
      status: 'validating',
      total: 2,
      validatedCount: 0,
      counts: { pending: 2, sent: 0, failed: 0, cancelled: 0 },
    },
  })
  @ApiStreamedBody()
  @ApiErrors(
    'INVALID_REQUEST_BODY',
    'IDEMPOTENCY_KEY_REQUIRED',
    'IDEMPOTENCY_KEY_INVALID',
    'MESSAGES_PER_SECOND_INVALID',
    'MESSAGES_REQUIRED',
    'INVALID_MESSAGE',
    'SUBSCRIPTION_INACTIVE',
    'IDEMPOTENCY_CONFLICT',
  )
  async create(@CurrentAuth() auth: AuthContext, @Req() req: Request): Promise<{ success: true } & BulkJobView> {
    return { success: true, ...(await this.intake.accept(auth, req)) };
  }

  @Post('validate')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @ApiOperation({
    operationId: 'validateBulkJob',
    summary: 'Check a bulk job without creating it (dry run)',
    description:
      'Takes the body of `createBulkJob` (streamed the same way, same limits and request errors; no Idempotency-Key) and ' +
      'runs every row through the same validation a job gets, then prices the valid rows from the balance as it is now. ' +
      'Nothing is stored, sent or paid. A malformed element is 400 INVALID_MESSAGE, as on creation; a row that fails ' +
      'validation is counted in `invalid` (the first 100 listed in `errors`): a real job with one would be rejected.',
  })
  @ApiBody({
    type: CreateBulkJobBody,
    examples: { newsletter: { summary: 'Two messages, five per second', value: EXAMPLE_BULK_BODY } },
  })
  @ApiSuccess(200, BulkDryRunResource, { description: 'What the job would be', example: EXAMPLE_DRY_RUN })
  @ApiStreamedBody()
  @ApiErrors(
    'INVALID_REQUEST_BODY',
    'MESSAGES_PER_SECOND_INVALID',
    'MESSAGES_REQUIRED',
    'INVALID_MESSAGE',
    'SUBSCRIPTION_INACTIVE',
  )
  async validate(
    @CurrentAuth() auth: AuthContext,
    @Req() req: Request,
  ): Promise<{ success: true; data: DryRunResult }> {
    return { success: true, data: await this.dryRun.run(auth, req) };
  }

  // BulkModule is imported before MessagingModule, so this route precedes GET /api/v2/messages/:id.
  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({ operationId: 'listBulkJobs', summary: 'List bulk jobs, newest first' })
  @ApiSuccess(200, BulkJobPage, {
    description: 'One page of jobs',
    example: { success: true, data: { jobs: [EXAMPLE_JOB], nextCursor: null, hasMore: false } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListBulkJobsQuery,
  ): Promise<{ success: true; data: JobPage }> {
    return { success: true, data: await this.jobs.list(auth.accountId, q) };
  }

  @Get(':jobId')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'getBulkJob',
    summary: 'Read a bulk job',
    description: 'Poll until the job settles: `queued`, `running`, `rejected`, `paused`, `completed` or `cancelled`.',
  })
  @JobIdParam()
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The job', example: jobBody({}) })
  @ApiErrors('JOB_NOT_FOUND')
  async get(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.get(auth.accountId, jobId) };
  }

  @Get(':jobId/events')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'streamBulkJobEvents',
    summary: 'Live progress of a bulk job (server-sent events)',
    description:
      'A `text/event-stream`: `event: job` with the job object (as `getBulkJob` answers it, delivery counts included) at once, ' +
      `then again whenever it changed (checked every ${EVENTS_POLL_MS} ms, so at most twice a second); a comment line \`: ping\` ` +
      'every 15 s while nothing changes; once the job is `completed`, `rejected` or `cancelled` with nothing pending (a job ' +
      "cancelled mid-window first finishes that window), `event: end` (data: the job's " +
      '`id` and `status`) and the server closes the stream. Any replica serves any job. A stream also ends when the server ' +
      'shuts down: reconnect, and the first event is the job as it is then. Errors are JSON envelopes, before any event; ' +
      '429 RATE_LIMITED when the account already holds BULK_EVENTS_MAX_PER_ACCOUNT (20) streams on the replica. ' +
      'Browsers: EventSource cannot send the X-API-Key header; read the body of a `fetch()` instead.',
  })
  @JobIdParam()
  @ApiFileSuccess(200, {
    description: "The job's events until it is final",
    mediaType: 'text/event-stream',
    example:
      `event: job\ndata: ${JSON.stringify({ ...EXAMPLE_JOB, status: 'running' })}\n\n` +
      ': ping\n\n' +
      `event: job\ndata: ${JSON.stringify({ ...EXAMPLE_JOB, status: 'completed', counts: { pending: 0, sent: 3, failed: 0, cancelled: 0 } })}\n\n` +
      `event: end\ndata: ${JSON.stringify({ id: EXAMPLE_JOB.id, status: 'completed' })}\n\n`,
  })
  @ApiErrors('JOB_NOT_FOUND')
  async events(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string, @Res() res: Response): Promise<void> {
    await this.jobEvents.open(auth.accountId, jobId, res);
  }

  @Get(':jobId/rows')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listBulkJobRows',
    summary: 'Per-row report of a job, in row order (status filter, cursor)',
  })
  @JobIdParam()
  @ApiSuccess(200, BulkRowPage, {
    description: 'One page of rows',
    example: {
      success: true,
      data: {
        jobId: EXAMPLE_JOB.id,
        rows: [
          {
            index: 0,
            to: '+14155550101',
            channel: 'local_sms',
            status: 'sent',
            messageId: 'msg_01jd8x2m0a1b2c3d4e5f6g7h',
            errorCode: null,
            errorMessage: null,
            sentAt: '2024-11-19T10:15:02.000Z',
            livemode: true,
          },
          {
            index: 1,
            to: 'ana@example.com',
            channel: 'email',
            status: 'pending',
            messageId: null,
            errorCode: null,
            errorMessage: null,
            sentAt: null,
            livemode: true,
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'JOB_NOT_FOUND')
  async rows(
    @CurrentAuth() auth: AuthContext,
    @Param('jobId') jobId: string,
    @Query() q: ListBulkRowsQuery,
  ): Promise<{ success: true; data: RowPage }> {
    return { success: true, data: await this.jobs.rows(auth.accountId, jobId, q) };
  }

  @Get(':jobId/rows.csv')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'exportBulkJobRows',
    summary: 'Per-row report of a job as a CSV file',
    description:
      'RFC 4180, UTF-8 (no byte order mark), CRLF line ends, one header row, then every row in row order, streamed. A cell ' +
      "starting with = + - @, tab or CR gets a leading `'` so a spreadsheet never runs it as a formula; a phone number " +
      '(`+` and digits only) is left as it is. An error after the first byte ends the connection early (no error body).',
  })
  @JobIdParam()
  @ApiFileSuccess(200, {
    description: 'The rows as CSV',
    mediaType: 'text/csv',
    example:
      'rowIndex,to,channel,status,messageId,errorCode,errorMessage,sentAt\r\n' +
      '0,+14155550101,local_sms,sent,msg_01jd8x2m0a1b2c3d4e5f6g7h,,,2024-11-19T10:15:02.000Z\r\n' +
      '1,ana@example.com,email,pending,,,,\r\n',
    headers: {
      'Content-Disposition': {
        description: '`attachment; filename="bulk-<jobId>-rows.csv"`',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors('JOB_NOT_FOUND')
  async rowsCsv(
    @CurrentAuth() auth: AuthContext,
    @Param('jobId') jobId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // Another account's or an unknown job: the JSON 404, before any CSV byte.
    const job = await this.jobs.get(auth.accountId, jobId);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="bulk-${job.id}-rows.csv"`);
    // HEAD (Express routes it here) sends no body: do not read the job's rows to throw them away.
    if (req.method === 'HEAD') return void res.end();
    this.rowExport.writeCsv(auth.accountId, job.id, res, requestIdOf(req));
  }

  @Post(':jobId/retry-failed')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'retryFailedBulkRows',
    summary: 'Send the failed rows of a job again',
    description:
      'Moves every failed row back to `pending` and the job to `queued`. 402 (rows untouched) when the account cannot pay for one message.',
  })
  @JobIdParam()
  @ApiSuccess(200, BulkRetryResult, {
    bare: true,
    description: 'How many rows were moved, and the job',
    example: {
      success: true,
      retried: 1,
      job: { ...EXAMPLE_JOB, status: 'queued', counts: { pending: 1, sent: 2, failed: 0, cancelled: 0 } },
    },
  })
  @ApiErrors('JOB_NOT_FOUND', 'NOTHING_TO_RETRY', 'INSUFFICIENT_BALANCE')
  async retryFailed(
    @CurrentAuth() auth: AuthContext,
    @Param('jobId') jobId: string,
  ): Promise<{ success: true; retried: number; job: BulkJobView }> {
    return { success: true, ...(await this.jobs.retryFailed(auth.accountId, jobId)) };
  }

  @Post(':jobId/pause')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'pauseBulkJob',
    summary: 'Pause a queued or running job',
    description: 'Also turns an automatic pause (balance, provider rate limit) into a user pause.',
  })
  @JobIdParam()
  @ApiSuccess(200, BulkJobEnvelope, {
    bare: true,
    description: 'The paused job',
    example: jobBody({ status: 'paused', pauseReason: 'user' }),
  })
  @ApiErrors('JOB_NOT_FOUND', 'INVALID_JOB_STATE')
  async pause(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.pause(auth.accountId, jobId) };
  }

  @Post(':jobId/resume')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'resumeBulkJob',
    summary: 'Resume a paused job',
    description:
      'A job paused for its balance resumes only when the account can pay for the next message (402 otherwise).',
  })
  @JobIdParam()
  @ApiSuccess(200, BulkJobEnvelope, {
    bare: true,
    description: 'The job, queued again',
    example: jobBody({ status: 'queued' }),
  })
  @ApiErrors('JOB_NOT_FOUND', 'INVALID_JOB_STATE', 'INSUFFICIENT_BALANCE')
  async resume(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.resume(auth.accountId, jobId) };
  }

  @Post(':jobId/cancel')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'cancelBulkJob',
    summary: 'Cancel a job',
    description: 'Its pending rows become `cancelled`; rows already sent stay sent.',
  })
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
