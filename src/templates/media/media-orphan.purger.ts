import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../../common/clock';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { AppConfig } from '../../config/app-config';
import { TemplateMediaEntity } from '../entities/template-media.entity';
import { MediaStorage } from './media-storage';

const BATCH = 100;
/** No template uses the asset `ref` names (a column or a parameter). */
const unused = (ref: string) => `NOT EXISTS (SELECT 1 FROM templates t WHERE t.header_asset_id = ${ref})`;

/**
 * Removes uploaded header media that no template uses once it is older than MEDIA_ORPHAN_HOURS
 * (uploads are meant to be referenced by a template soon after), every MEDIA_PURGE_TICK_MS and at
 * start-up. Safe on several replicas: each row goes by a conditional DELETE (still unused), and only
 * the replica whose DELETE took the row removes the file.
 */
@Injectable()
export class MediaOrphanPurger implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('media-orphan-purge', () => this.purge());
  private readonly logger = new Logger(MediaOrphanPurger.name);
  private readonly orphanMs: number;
  private readonly tickMs: number;

  constructor(
    @InjectRepository(TemplateMediaEntity) private readonly media: Repository<TemplateMediaEntity>,
    private readonly storage: MediaStorage,
    private readonly clock: Clock,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    // No leases: each row goes by a conditional DELETE; a pass ends after its current batch.
    shutdown.register({
      name: 'media-orphan-purge',
      stopClaiming: () => this.job.halt(),
      drain: () => this.job.idle(),
    });
    this.orphanMs = config.media.orphanMs;
    this.tickMs = config.media.purgeTickMs;
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    void this.job.tick();
    this.job.start(this.scheduler, this.tickMs);
  }

  /** One pass: how many assets (row and file) were removed. */
  async purge(): Promise<number> {
    const before = this.clock.now() - this.orphanMs;
    let removed = 0;
    let after = '';
    for (;;) {
      const candidates = await this.media
        .createQueryBuilder('m')
        .select(['m.id', 'm.storageKey'])
        .where('m.createdAt < :before AND m.id > :after', { before, after })
        .andWhere(unused('m.id'))
        .orderBy('m.id', 'ASC')
        .limit(BATCH)
        .getMany();
      for (const c of candidates) {
        const res = await this.media
          .createQueryBuilder()
          .delete()
          .from(TemplateMediaEntity)
          .where('id = :id', { id: c.id })
          .andWhere(unused(':id'))
          .execute();
        if (!res.affected) continue;
        await this.storage.delete(c.storageKey);
        removed++;
      }
      if (candidates.length < BATCH || this.job.halted) break;
      after = candidates[candidates.length - 1].id;
    }
    if (removed > 0) this.logger.log(`removed ${removed} unused header media file(s)`);
    return removed;
  }
}
