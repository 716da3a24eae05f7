import { Inject, Injectable } from '@nestjs/common';
import { getStorageToken } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';

/** A dependency that does not answer within this is down (a probe must answer well inside its own timeout). */
const CHECK_TIMEOUT_MS = 2000;

export interface Readiness {
  status: 'ok';
  database: 'up';
  redis: 'up' | 'not_configured';
  migrations: 'up_to_date';
}

/** Ready, or the reasons this replica should get no traffic now (for the 503's text). */
export type ReadinessVerdict = { ready: true; report: Readiness } | { ready: false; problems: string[] };

/**
 * What `/health/ready` checks: not shutting down, the database answers, Redis answers PING (when
 * REDIS_URL is set: the throttler's shared counters live there), and every migration this version
 * knows has run (start-up runs them; a database restored from an older backup under a running
 * replica would not have them).
 */
@Injectable()
export class ReadinessService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(getStorageToken()) private readonly throttlerStorage: unknown,
    private readonly shutdown: ShutdownCoordinator,
  ) {}

  async check(): Promise<ReadinessVerdict> {
    // Checked first and alone: the pools may be closing.
    if (this.shutdown.shuttingDown) return { ready: false, problems: ['shutting down'] };
    const [pending, redis] = await Promise.all([this.pendingMigrations(), this.redis()]);
    if (pending !== 'down' && !pending.length && redis !== 'down')
      return { ready: true, report: { status: 'ok', database: 'up', redis, migrations: 'up_to_date' } };
    const problems: string[] = [];
    if (pending === 'down') problems.push('database unreachable');
    else if (pending.length) problems.push(`${pending.length} migration(s) pending: ${pending.join(', ')}`);
    if (redis === 'down') problems.push('redis unreachable');
    return { ready: false, problems };
  }

  /** The names of migrations not recorded as run, or 'down' when the database does not answer. */
  private async pendingMigrations(): Promise<string[] | 'down'> {
    try {
      const table = this.ds.driver.escape(this.ds.options.migrationsTableName ?? 'migrations');
      const rows = await timed(this.ds.query<{ name: string }[]>(`SELECT name FROM ${table}`));
      const run = new Set(rows.map((r) => r.name));
      return this.ds.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !run.has(name));
    } catch {
      return 'down';
    }
  }

  private async redis(): Promise<'up' | 'down' | 'not_configured'> {
    if (!(this.throttlerStorage instanceof ThrottlerStorageRedisService)) return 'not_configured';
    const client = this.throttlerStorage.redis;
    // Known down (the client is retrying): say so without queueing one more PING behind the others.
    if (['reconnecting', 'close', 'end'].includes(client.status)) return 'down';
    try {
      return (await timed(client.ping())) === 'PONG' ? 'up' : 'down';
    } catch {
      return 'down';
    }
  }
}

function timed<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS)),
  );
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
