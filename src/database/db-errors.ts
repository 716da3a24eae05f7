/**
 * True for a unique-index (or primary-key) violation, on SQLite (better-sqlite3, raw or wrapped in
 * TypeORM's QueryFailedError) and MySQL/MariaDB (mysql2). Other constraint failures (NOT NULL,
 * foreign keys) are not duplicates and return false.
 */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } } | null;
  const code = e?.driverError?.code ?? e?.code;
  const errno = e?.driverError?.errno ?? e?.errno;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'ER_DUP_ENTRY' || errno === 1062;
}

/** True for a MySQL/MariaDB deadlock (1213) or lock wait timeout (1205): the transaction may be retried. */
export function isDeadlockOrLockTimeout(err: unknown): boolean {
  const e = err as { errno?: number; driverError?: { errno?: number } } | null;
  const errno = e?.driverError?.errno ?? e?.errno;
  return errno === 1213 || errno === 1205;
}
