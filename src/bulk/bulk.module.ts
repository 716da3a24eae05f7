import { Module } from '@nestjs/common';
import { BulkRowsEraser } from './bulk-rows-eraser.repository';
import { BulkJobsPurgeRepository } from './bulk-jobs-purge.repository';
import { AccountsModule } from '../accounts/accounts.module';
import { MessagingModule } from '../messaging/messaging.module';
import { BulkController } from './bulk.controller';
import { BulkDispatcher } from './bulk-dispatcher';
import { BulkJobRunnerFactory } from './bulk-job-runner.factory';
import { WindowBatches } from './window-batches';
import { BulkDryRunService } from './bulk-dry-run.service';
import { BulkIntakeService } from './bulk-intake.service';
import { BulkJobEvents } from './bulk-job-events';
import { BulkJobsService } from './bulk-jobs.service';
import { BulkJobLeasesRepository } from './bulk-job-leases.repository';
import { BulkJobWindowsRepository } from './bulk-job-windows.repository';
import { BulkJobValidationRepository } from './bulk-job-validation.repository';
import { BulkJobRepository } from './bulk-job.repository';
import { BulkRowRepository } from './bulk-row.repository';
import { WindowRowsRepository } from './window-rows.repository';
import { BulkMetricsSource } from './bulk-metrics.source';
import { BulkReaper } from './bulk-reaper';
import { BulkRowExport } from './bulk-row-export.service';
import { BulkRowReport } from './bulk-row-report';
import { BulkSettings } from './bulk-settings';
import { BulkValidationLoop } from './bulk-validation.loop';
import { BulkJobStream } from './bulk-job-stream';

/** Bulk jobs: streamed intake and dry run, background validation, paced dispatch under leases, job routes, CSV export, the job event stream. */
@Module({
  imports: [AccountsModule, MessagingModule],
  controllers: [BulkController],
  providers: [
    BulkRowsEraser,
    BulkJobsPurgeRepository,
    BulkSettings,
    BulkJobRepository,
    BulkJobLeasesRepository,
    BulkJobWindowsRepository,
    BulkJobValidationRepository,
    BulkRowRepository,
    WindowRowsRepository,
    BulkJobEvents,
    BulkJobStream,
    BulkIntakeService,
    BulkDryRunService,
    BulkJobsService,
    BulkRowExport,
    BulkRowReport,
    BulkReaper,
    BulkValidationLoop,
    BulkJobRunnerFactory,
    BulkDispatcher,
    WindowBatches,
    BulkMetricsSource,
  ],
  exports: [BulkJobsService],
})
export class BulkModule {}
