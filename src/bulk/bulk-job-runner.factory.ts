import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { MetricsService } from '../metrics/metrics.service';
import { SEND_POLICY, type SendPolicy } from '../messaging/policy/send-policy';
import { MessageValidator } from '../messaging/validation/message-validator';
import { WindowSender } from '../messaging/window-sender';
import { BulkJobEvents } from './bulk-job-events';
import { BulkJobLeasesRepository } from './bulk-job-leases.repository';
import { BulkJobRunner, RunnerDeps, RunnerJob } from './bulk-job-runner';
import { BulkRowRepository } from './bulk-row.repository';
import { BulkSettings } from './bulk-settings';
import { WindowBatches } from './window-batches';

/**
 * Builds the runner of each job the dispatcher leased. Nest injects what every runner works with;
 * `create` adds the job, so a runner is never assembled by hand.
 */
@Injectable()
export class BulkJobRunnerFactory implements RunnerDeps {
  constructor(
    readonly clock: Clock,
    readonly settings: BulkSettings,
    readonly validator: MessageValidator,
    readonly windows: WindowSender,
    readonly metrics: MetricsService,
    readonly leases: BulkJobLeasesRepository,
    readonly rows: BulkRowRepository,
    readonly batches: WindowBatches,
    readonly events: BulkJobEvents,
    @Inject(SEND_POLICY) readonly policy: SendPolicy,
  ) {}

  /** `quiet`: no row of the job was settled in the second before it was leased (no send time to pace after). */
  create(job: RunnerJob, quiet: boolean): BulkJobRunner {
    return new BulkJobRunner(this, job, quiet);
  }
}
