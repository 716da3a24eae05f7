import { QueryFailedError } from 'typeorm';

/** True for a unique-index violation on SQLite (better-sqlite3) or MySQL/MariaDB (mysql2). */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driver = (err as QueryFailedError & { driverError?: { code?: string; errno?: number } }).driverError;
  return driver?.code === 'SQLITE_CONSTRAINT_UNIQUE' || driver?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || driver?.code === 'ER_DUP_ENTRY' || driver?.errno === 1062;
}
