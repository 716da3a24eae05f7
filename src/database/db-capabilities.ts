import type { UpdateFromSyntax, UpsertSyntax } from './sql';

/** What the database can do, for the few statements that differ (feature code never names a dialect). */
export interface DbCapabilities {
  /** `FOR UPDATE SKIP LOCKED` exists. */
  skipLocked: boolean;
  /**
   * A locking read (`FOR UPDATE`) holds its rows until the unit ends. Without it (the embedded
   * database) a unit is exclusive, so a plain read inside it is already as good as a locked one.
   */
  rowLocks: boolean;
  /** Writes on several pooled connections overlap (the embedded database has one writer). */
  concurrentWrites: boolean;
  /** The zero-setup embedded database in this process (a developer's machine, the demo account). */
  embedded: boolean;
  /** How an UPDATE takes its values from a list of rows (`updateFromRows`). */
  updateFrom: UpdateFromSyntax;
  /** How one statement inserts a row of counters or adds to the existing one (`insertOrAdd`). */
  upsert: UpsertSyntax;
}
