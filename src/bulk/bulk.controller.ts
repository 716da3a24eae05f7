import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { BulkIntakeService } from './bulk-intake.service';
import { BulkJobsService, JobPage, RowPage } from './bulk-jobs.service';
import { BulkJobView } from './bulk-job.view';
import { ListBulkJobsQuery, ListBulkRowsQuery } from './dto/bulk-queries.dto';

type JobBody = { success: true; job: BulkJobView };

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
  @ApiHeader({ name: 'Idempotency-Key', required: true, description: 'At most 200 characters; wins over a body idempotencyKey' })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['messagesPerSecond', 'messages'],
      properties: {
        name: { type: 'string', maxLength: 200 },
        messagesPerSecond: { type: 'integer', minimum: 1, maximum: 10 },
        messages: { type: 'array', minItems: 1, items: { type: 'object', description: 'One recipient object of the send route; `to` a single recipient, no scheduleAt' } },
        idempotencyKey: { type: 'string', maxLength: 200 },
      },
    },
  })
  @ApiOperation({ summary: 'Queue a bulk job (body streamed, no size limit)' })
  async create(@CurrentAuth() auth: AuthContext, @Req() req: Request): Promise<{ success: true } & BulkJobView> {
    return { success: true, ...(await this.intake.accept(auth, req)) };
  }

  // BulkModule is imported before MessagingModule, so this route precedes GET /api/v2/messages/:id.
  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'List bulk jobs, newest first' })
  async list(@CurrentAuth() auth: AuthContext, @Query() q: ListBulkJobsQuery): Promise<{ success: true; data: JobPage }> {
    return { success: true, data: await this.jobs.list(auth.accountId, q) };
  }

  @Get(':jobId')
  @RequirePermissions('messages:read')
  async get(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.get(auth.accountId, jobId) };
  }

  @Get(':jobId/rows')
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'Per-row report of a job (status filter, cursor)' })
  async rows(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string, @Query() q: ListBulkRowsQuery): Promise<{ success: true; data: RowPage }> {
    return { success: true, data: await this.jobs.rows(auth.accountId, jobId, q) };
  }

  @Post(':jobId/retry-failed')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  async retryFailed(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<{ success: true; retried: number; job: BulkJobView }> {
    return { success: true, ...(await this.jobs.retryFailed(auth.accountId, jobId)) };
  }

  @Post(':jobId/pause')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  async pause(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.pause(auth.accountId, jobId) };
  }

  @Post(':jobId/resume')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  async resume(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.resume(auth.accountId, jobId) };
  }

  @Post(':jobId/cancel')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  async cancel(@CurrentAuth() auth: AuthContext, @Param('jobId') jobId: string): Promise<JobBody> {
    return { success: true, job: await this.jobs.cancel(auth.accountId, jobId) };
  }
}
