import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

/**
 * A periodic job that skips a tick while the previous run is still going (WAHA's
 * SinglePeriodicJobRunner), registered with @nestjs/schedule so its interval is configurable.
 * `stop()` waits for the run in progress, so shutdown never closes the database under it.
 */
export class SinglePeriodicJob<T = unknown> {
  private running: Promise<T | undefined> | null = null;
  private readonly log: Logger;

  constructor(
    private readonly name: string,
    private readonly fn: () => Promise<T>,
  ) {
    this.log = new Logger(name);
  }

  start(registry: SchedulerRegistry, everyMs: number): void {
    registry.addInterval(this.name, setInterval(() => void this.tick(), everyMs));
  }

  async stop(registry: SchedulerRegistry): Promise<void> {
    if (registry.doesExist('interval', this.name)) registry.deleteInterval(this.name);
    await this.running;
  }

  /** Runs once unless a run is already going (then resolves undefined at once); errors are logged. */
  async tick(): Promise<T | undefined> {
    if (this.running) return undefined;
    this.running = this.fn()
      .catch((err: unknown) => {
        this.log.error({ err }, `${this.name} tick failed`);
        return undefined;
      })
      .finally(() => (this.running = null));
    return this.running;
  }
}
