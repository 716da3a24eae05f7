/** A unit more than this many times slower per row than the fastest of its kind is taken as contention. */
const SLOW = 2;
/** The least share the purger keeps while it yields: the backlog still goes, slowly. */
const MIN_SHARE = 0.05;

/**
 * How long the retention purger rests after a unit of work (issue 29). Its share of the time is at most
 * RETENTION_PURGE_SHARE, and lower while its units run slower than the fastest of their kind: then the
 * database (or this process) is busy with other work, sending most of all, so the purger steps back. The
 * share halves after a slow unit and grows back by a tenth after one that is not (additive increase,
 * multiplicative decrease, as TCP paces itself); a backlog met on a quiet database goes at full speed.
 */
export class PurgePacer {
  /** The fastest time per row seen of each kind of unit (ms), which creeps up by 1% a unit to forget. */
  private readonly fastest = new Map<string, number>();
  private share: number;

  /** `maxShare`: RETENTION_PURGE_SHARE as a fraction (0-1]. */
  constructor(private readonly maxShare: number) {
    this.share = maxShare;
  }

  /** The current share (0-1]. */
  get currentShare(): number {
    return this.share;
  }

  /** The rest (ms) after a unit of `kind` that took `ms` for `rows` rows (0 rows: nothing learned). */
  restAfter(kind: string, ms: number, rows: number): number {
    if (rows > 0 && ms > 0) {
      const perRow = ms / rows;
      const best = Math.min((this.fastest.get(kind) ?? Infinity) * 1.01, perRow);
      this.fastest.set(kind, best);
      this.share =
        perRow > SLOW * best ? Math.max(MIN_SHARE, this.share / 2) : Math.min(this.maxShare, this.share + 0.1);
    }
    return this.share >= 1 ? 0 : (Math.max(ms, 0) * (1 - this.share)) / this.share;
  }
}
