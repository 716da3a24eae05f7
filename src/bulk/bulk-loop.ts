import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

/**
 * A periodic job that skips a tick while the previous run is still going (WAHA's
 * SinglePeriodicJobRunner), registered with @nestjs/schedule so its interval is configurable.
 */
export class SinglePeriodicJob {
  private running = false;
  private readonly log: Logger;

  constructor(
    private readonly name: string,
    private readonly fn: () => Promise<unknown>,
  ) {
    this.log = new Logger(name);
  }

  start(registry: SchedulerRegistry, everyMs: number): void {
    registry.addInterval(this.name, setInterval(() => void this.tick(), everyMs));
  }

  stop(registry: SchedulerRegistry): void {
    if (registry.doesExist('interval', this.name)) registry.deleteInterval(this.name);
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.fn();
    } catch (err) {
      this.log.error({ err }, `${this.name} tick failed`);
    } finally {
      this.running = false;
    }
  }
}
