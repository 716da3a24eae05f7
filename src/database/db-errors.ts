/**
 * True for a unique-index (or primary-key) violation, on SQLite (better-sqlite3, raw or wrapped in
 * TypeORM's QueryFailedError) and MySQL/MariaDB (mysql2). Other constraint failures (NOT NULL,
 * foreign keys) are not duplicates and return false.
 */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } } | null;
  const code = e?.driverError?.code ?? e?.code;
  const errno = e?.driverError?.errno ?? e?.errno;
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'ER_DUP_ENTRY' ||
    errno === 1062
  );
}

/** True for a MySQL/MariaDB deadlock (1213): InnoDB rolled the transaction back, which may be retried at once. */
export function isDeadlock(err: unknown): boolean {
  const e = err as { errno?: number; driverError?: { errno?: number } } | null;
  return (e?.driverError?.errno ?? e?.errno) === 1213;
}

type DriverErr = {
  errno?: number;
  code?: string;
  fatal?: boolean;
  driverError?: { errno?: number; code?: string; fatal?: boolean };
} | null;

/** True for a MySQL/MariaDB lock wait timeout (1205): someone held the row longer than DB_LOCK_WAIT_TIMEOUT_S; try later. */
export function isLockWaitTimeout(err: unknown): boolean {
  const e = err as DriverErr;
  return (e?.driverError?.errno ?? e?.errno) === 1205;
}

/**
 * True when the connection itself is gone (mysql2 marks such errors `fatal`): the server closed it
 * (idle-transaction timeout after a pause, restart, KILL) or the network failed. Its transaction was
 * rolled back by the server; the pool has already dropped the connection.
 */
export function isConnectionLost(err: unknown): boolean {
  const e = err as DriverErr;
  const code = e?.driverError?.code ?? e?.code;
  return (
    e?.driverError?.fatal === true ||
    e?.fatal === true ||
    code === 'PROTOCOL_CONNECTION_LOST' ||
    code === 'ER_CLIENT_INTERACTION_TIMEOUT'
  );
}

/** The database is busy or the connection is gone: the work was not done and can be tried again shortly. */
export function isTransientDbError(err: unknown): boolean {
  return isLockWaitTimeout(err) || isConnectionLost(err);
}

/** MySQL/MariaDB "Unknown database" (1049): retrying cannot help, the operator has to act. */
export function isUnknownDatabase(err: unknown): boolean {
  const e = err as DriverErr;
  return (e?.driverError?.code ?? e?.code) === 'ER_BAD_DB_ERROR' || (e?.driverError?.errno ?? e?.errno) === 1049;
}
