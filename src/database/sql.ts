/** A value bound to a `?` placeholder. */
export type SqlParam = string | number | null;

/** One statement with its parameters (repositories build these; the unit of work runs them). */
export interface Stmt {
  sql: string;
  params: SqlParam[];
}

/** A row as the driver returns it (numbers may be strings from mysql2): repositories convert it once. */
export type Row = Record<string, unknown>;

export interface StmtResult {
  /** Rows changed by a write (0 for a read). */
  affected: number;
  /** Rows returned by a read (empty for a write). */
  rows: Row[];
}

/**
 * A unit of work written once for both dialects: it yields statements and receives their results.
 * The unit of work runs it synchronously on the embedded database (nothing else can interleave) and
 * on a pooled connection otherwise. Compose smaller steps with `yield*`.
 */
export type Steps<T> = Generator<Stmt, T, StmtResult>;

export const sql = (text: string, ...params: SqlParam[]): Stmt => ({ sql: text, params });

/** `?, ?, ?` for an `IN (...)` of `n` parameters. */
export const inList = (n: number): string => Array(n).fill('?').join(', ');

/** `CASE <column> WHEN ? THEN ? ... END` over `pairs` (key, value): one UPDATE sets a different value per row. */
export function caseOf(column: string, pairs: [SqlParam, SqlParam][]): Stmt {
  const params: SqlParam[] = [];
  for (const [k, v] of pairs) params.push(k, v);
  return { sql: `CASE ${column} ${pairs.map(() => 'WHEN ? THEN ?').join(' ')} END`, params };
}
