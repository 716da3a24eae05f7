import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { AppConfig } from '../../config/app-config';
import { ReceiptIntakeService } from './receipt-intake.service';

const BATCH = 500;

/**
 * Applies kept receipts whose message was recorded after the send looked for them, and drops those
 * past RECEIPT_MATCH_WINDOW_MS. Needs no lease: applying a receipt twice changes nothing.
 */
@Injectable()
export class ReceiptSweeper implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('messaging.receipt-sweeper', () => this.intake.sweep(BATCH));

  constructor(
    private readonly config: AppConfig,
    private readonly intake: ReceiptIntakeService,
    private readonly scheduler: SchedulerRegistry,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({ name: 'receipt-sweeper', stopClaiming: () => this.job.halt(), drain: () => this.job.idle() });
  }

  onApplicationBootstrap(): void {
    if (this.config.schedulers.enabled) this.job.start(this.scheduler, this.config.messaging.receiptSweepTickMs);
  }

  async tick(): Promise<number | undefined> {
    return this.job.tick();
  }
}
