import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { BulkIntakeService } from './bulk-intake.service';
import { BulkJobsService, JobPage, RowPage } from './bulk-jobs.service';
import { BulkJobStream } from './bulk-job-stream';
import { BulkJobView } from './bulk-job.view';
import { ApiErrors, ApiFileSuccess, ApiStreamedBody, ApiSuccess } from '../common/openapi';
import { requestIdOf } from '../common/request-id';
import { BulkDryRunService, DryRunResult } from './bulk-dry-run.service';
import { BulkRowExport } from './bulk-row-export.service';
import { BulkDryRunResource, EXAMPLE_DRY_RUN } from './dto/bulk-dry-run.response';
import {
  ApiBulkJobBody,
  DESCRIPTIONS,
  EXAMPLES,
  IdempotencyKeyHeader,
  JobIdParam,
  ROWS_CSV_HEADERS,
} from './bulk.openapi';
import { BulkJobAccepted, BulkJobEnvelope, BulkJobPage, BulkRetryResult, BulkRowPage } from './dto/bulk-job.response';
import { ListBulkJobsQuery, ListBulkRowsQuery } from './dto/bulk-queries.dto';

type JobBody = { success: true; job: BulkJobView };

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
  @ApiOperation({ operationId: 'createBulkJob', summary: 'Queue a bulk job', description: DESCRIPTIONS.create })
  @IdempotencyKeyHeader()
  @ApiBulkJobBody()
  @ApiSuccess(202, BulkJobAccepted, {
    bare: true,
    description: 'The job, `validating` (or the existing job of this Idempotency-Key)',
    example: EXAMPLES.created,
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
    description: DESCRIPTIONS.validate,
  })
  @ApiBulkJobBody()
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
  @ApiSuccess(200, BulkJobPage, { description: 'One page of jobs', example: EXAMPLES.jobs })
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
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The job', example: EXAMPLES.job })
  @ApiErrors('JOB_NOT_FOUND')
  async get(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.get(auth.accountId, jobId) };
  }

  @Get(':jobId/events')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'streamBulkJobEvents',
    summary: 'Live progress of a bulk job (server-sent events)',
    description: DESCRIPTIONS.events,
  })
  @JobIdParam()
  @ApiFileSuccess(200, {
    description: "The job's events until it is final",
    mediaType: 'text/event-stream',
    example: EXAMPLES.events,
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
  @ApiSuccess(200, BulkRowPage, { description: 'One page of rows', example: EXAMPLES.rows })
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
    description: DESCRIPTIONS.rowsCsv,
  })
  @JobIdParam()
  @ApiFileSuccess(200, {
    description: 'The rows as CSV',
    mediaType: 'text/csv',
    example: EXAMPLES.rowsCsv,
    headers: ROWS_CSV_HEADERS,
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
    example: EXAMPLES.retried,
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
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The paused job', example: EXAMPLES.paused })
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
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The job, queued again', example: EXAMPLES.resumed })
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
  @ApiSuccess(200, BulkJobEnvelope, { bare: true, description: 'The cancelled job', example: EXAMPLES.cancelled })
  @ApiErrors('JOB_NOT_FOUND', 'INVALID_JOB_STATE')
  async cancel(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.cancel(auth.accountId, jobId) };
  }
}
