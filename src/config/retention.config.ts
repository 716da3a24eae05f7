import type { EnvReader } from './env-reader';

const DAY_MS = 86_400_000;

/**
 * How long what grows with traffic is kept (docs/operations.md, "Data kept and for how long"). A message
 * (with its status history, provider ids and sandbox delivery) goes once it has settled (left scheduled
 * and queued, been counted into usage) and has not changed for `messagesDays`; what is never purged:
 * scheduled or unsettled messages, pending bulk rows, unsettled jobs, undelivered webhook events, usage.
 */
export interface RetentionConfig {
  /** RETENTION_MESSAGES_DAYS: messages and everything hanging off them, after they settle. */
  messagesDays: number;
  /** RETENTION_BULK_JOBS_DAYS: settled bulk jobs (completed, cancelled, rejected) and their rows. */
  bulkJobsDays: number;
  /** RETENTION_INBOUND_DAYS: inbound SMS and web-session inbound messages. */
  inboundDays: number;
  /** RETENTION_SANDBOX_DAYS: what the sandbox provider recorded as delivered (admin sandbox log). */
  sandboxDeliveriesDays: number;
  /** RETENTION_ACCOUNT_MAX_DAYS: the largest `retentionDays` an operator may set on an account. */
  accountMaxDays: number;
  /** RETENTION_PURGE_TICK_MS: how often the purger runs (and once at start-up). */
  purgeTickMs: number;
  /** RETENTION_PURGE_BATCH: messages (or rows) deleted per unit of work. */
  purgeBatch: number;
  /**
   * RETENTION_PURGE_SHARE: the most of the time (percent) the purger spends in its units; after each it
   * rests in proportion (100: no rest), so a purge of a large backlog leaves turns to sending.
   */
  purgeShare: number;
  /**
   * RETENTION_PURGE_BUSY_SHARE: the most of the time (percent) the purger spends in its units while the
   * service is busy on a database with one writer (the embedded one): others held the writer 5% of the
   * time since the last unit; then its units are also a quarter of RETENTION_PURGE_BATCH.
   */
  purgeBusyShare: number;
  /**
   * RETENTION_PURGE_STREAMS: units of messages deleted at once where writes run side by side (MySQL/MariaDB),
   * each RETENTION_PURGE_BATCH messages of their own; 1 on the embedded database (one writer). Default 1: two
   * cleared a backlog about a quarter faster but sending kept less of its rate (docs/benchmarks.md).
   */
  purgeStreams: number;
  /** USAGE_ROLLUP_TICK_MS: how often settled messages are rolled into the daily usage records. */
  usageTickMs: number;
  /** Length of a retention day in ms (always a day; benchmarks and soak runs shorten it). */
  dayMs: number;
}

export function retentionSection(r: EnvReader): RetentionConfig {
  const days = (name: string, def: number) => r.int(name, def, 1, 36_500);
  return {
    messagesDays: days('RETENTION_MESSAGES_DAYS', 90),
    bulkJobsDays: days('RETENTION_BULK_JOBS_DAYS', 90),
    inboundDays: days('RETENTION_INBOUND_DAYS', 90),
    sandboxDeliveriesDays: days('RETENTION_SANDBOX_DAYS', 7),
    accountMaxDays: days('RETENTION_ACCOUNT_MAX_DAYS', 730),
    purgeTickMs: r.int('RETENTION_PURGE_TICK_MS', 60_000, 1000, 86_400_000),
    purgeBatch: r.int('RETENTION_PURGE_BATCH', 2000, 10, 5000),
    purgeShare: r.int('RETENTION_PURGE_SHARE', 100, 5, 100),
    purgeBusyShare: r.int('RETENTION_PURGE_BUSY_SHARE', 25, 5, 100),
    purgeStreams: r.int('RETENTION_PURGE_STREAMS', 1, 1, 8),
    usageTickMs: r.int('USAGE_ROLLUP_TICK_MS', 10_000, 100, 3_600_000),
    dayMs: r.int('RETENTION_DAY_MS', DAY_MS, 1000, DAY_MS),
  };
}
