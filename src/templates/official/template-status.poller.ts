import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, Repository } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { TemplateEntity } from '../entities/template.entity';
import { TemplatesService } from '../templates.service';
import { OfficialTemplateClient } from './official-template-client';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';

const INTERVAL_NAME = 'templates-status-poll';

/**
 * Asks the official provider for the review status of pending templates (for deployments where the
 * status callback is not configured). Every TEMPLATE_STATUS_POLL_MS: up to
 * TEMPLATE_STATUS_POLL_BATCH rows, each claimed first with a conditional UPDATE (lease), so replicas
 * never poll the same template twice in one interval. Skips a tick while the previous one runs.
 */
@Injectable()
export class TemplateStatusPoller implements OnApplicationBootstrap {
  private readonly logger = new Logger(TemplateStatusPoller.name);
  private readonly everyMs: number;
  private readonly batch: number;
  private readonly job = new SinglePeriodicJob(INTERVAL_NAME, () => this.pass());

  constructor(
    @InjectRepository(TemplateEntity) private readonly templates: Repository<TemplateEntity>,
    private readonly service: TemplatesService,
    private readonly client: OfficialTemplateClient,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    shutdown: ShutdownCoordinator,
  ) {
    // Its poll leases last one interval and only space out polls: nothing to hand over.
    shutdown.register({
      name: 'template-status-poll',
      stopClaiming: () => this.job.halt(),
      drain: () => this.job.idle(),
    });
    this.everyMs = config.templates.statusPollMs;
    this.batch = config.templates.statusPollBatch;
  }

  onApplicationBootstrap(): void {
    // The sandbox keeps no review state: nothing to poll.
    if (!this.config.schedulers.enabled || this.client.name === 'sandbox') return;
    this.job.start(this.scheduler, this.everyMs);
  }

  /** One bounded pass; returns how many templates changed status. */
  async tick(): Promise<number> {
    return (await this.job.tick()) ?? 0;
  }

  private async pass(): Promise<number> {
    const now = this.clock.now();
    const due = [{ pollLeaseExpiresAt: IsNull() }, { pollLeaseExpiresAt: LessThan(now) }].map((lease) => ({
      status: 'pending' as const,
      provider: 'official' as const,
      creationMode: IsNull(),
      ...lease,
    }));
    const candidates = await this.templates.find({
      where: due,
      order: { id: 'ASC' },
      take: this.batch,
      select: { id: true, accountId: true, providerTemplateId: true, pollLeaseExpiresAt: true },
    });
    let changed = 0;
    for (const c of candidates) {
      if (this.job.halted) break;
      if (!c.providerTemplateId || !(await this.claim(c.id, c.pollLeaseExpiresAt, now))) continue;
      const found = await this.client.fetchStatus(c.providerTemplateId, c.accountId).catch((err: unknown) => {
        this.logger.warn({ err, templateId: c.id }, 'provider status lookup failed; will retry next interval');
        return null;
      });
      if (found && found.status !== 'pending') {
        if (await this.service.setStatusOfAny(c.id, found.status, found.reason)) changed++;
      }
    }
    return changed;
  }

  /** Conditional UPDATE: only one replica wins a row until its lease (one interval) expires. */
  private async claim(id: string, seen: number | null, now: number): Promise<boolean> {
    const qb = this.templates
      .createQueryBuilder()
      .update(TemplateEntity)
      .set({ pollLeaseExpiresAt: now + this.everyMs })
      .where('id = :id AND status = :status', { id, status: 'pending' });
    if (seen === null) qb.andWhere('poll_lease_expires_at IS NULL');
    else qb.andWhere('poll_lease_expires_at = :seen', { seen });
    const res = await qb.execute();
    return (res.affected ?? 0) === 1;
  }
}
