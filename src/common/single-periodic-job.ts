import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

/**
 * A periodic job that skips a tick while the previous run is still going (WAHA's
 * SinglePeriodicJobRunner), registered with @nestjs/schedule so its interval is configurable.
 * Shutdown is two steps (see ShutdownCoordinator): `halt()` starts no run from then on, `idle()`
 * waits for the run in progress, so the database is never closed under it.
 */
export class SinglePeriodicJob<T = unknown> {
  private running: Promise<T | undefined> | null = null;
  private registry: SchedulerRegistry | null = null;
  private stopped = false;
  private readonly log: Logger;

  constructor(
    readonly name: string,
    private readonly fn: () => Promise<T>,
  ) {
    this.log = new Logger(name);
  }

  start(registry: SchedulerRegistry, everyMs: number): void {
    if (this.stopped) return;
    this.registry = registry;
    registry.addInterval(
      this.name,
      setInterval(() => void this.tick(), everyMs),
    );
  }

  /** No run starts from now on (the timer is removed); a run in progress goes on. */
  halt(): void {
    this.stopped = true;
    if (this.registry?.doesExist('interval', this.name)) this.registry.deleteInterval(this.name);
  }

  /** True once halted: a long run checks it between its chunks and ends early. */
  get halted(): boolean {
    return this.stopped;
  }

  /** Resolves when the run in progress, if any, has ended. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** Runs once unless a run is already going or the job is halted (then resolves undefined at once); errors are logged. */
  async tick(): Promise<T | undefined> {
    if (this.running || this.stopped) return undefined;
    this.running = this.fn()
      .catch((err: unknown) => {
        this.log.error({ err }, `${this.name} tick failed`);
        return undefined;
      })
      .finally(() => (this.running = null));
    return this.running;
  }
}
