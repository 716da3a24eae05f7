import { Logger } from '@nestjs/common';
import * as mysql2 from 'mysql2';

export interface MysqlSessionLimits {
  /** innodb_lock_wait_timeout: a statement waits at most this long for a row lock (then errno 1205). */
  lockWaitTimeoutS: number;
  /** The server ends a transaction whose client has been silent this long, releasing its locks. */
  idleTransactionTimeoutS: number;
}

const log = new Logger('MysqlSession');

interface PooledConnection {
  _handshakePacket?: { serverVersion?: string };
  query(sql: string, params: unknown[], cb: (err: Error | null) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
}

/**
 * The session statement for one server flavour. MariaDB (10.3+) has `idle_transaction_timeout`;
 * MySQL has no idle-transaction limit, so its `wait_timeout` (any idle session) stands in: the server
 * also closes pooled connections idle that long, and the pool drops each one when its socket ends.
 */
export function sessionStatement(serverVersion: string, limits: MysqlSessionLimits): { sql: string; params: number[] } {
  const idle = /mariadb/i.test(serverVersion) ? 'idle_transaction_timeout' : 'wait_timeout';
  return {
    sql: `SET SESSION innodb_lock_wait_timeout = ?, ${idle} = ?`,
    params: [limits.lockWaitTimeoutS, limits.idleTransactionTimeoutS],
  };
}

/**
 * mysql2, with every new pooled connection configured before its first use (the pool emits
 * `connection` before handing it out, and a connection runs its commands in order):
 * - the session limits, so a paused or cut-off client's transaction cannot hold row locks for
 *   longer than `idleTransactionTimeoutS`, and nobody waits on a lock for long;
 * - a lasting `error` listener: a connection the server closed is dropped by the pool (mysql2 removes
 *   it on its first error, and release() of a removed connection does nothing), and a second error
 *   event on it (a write after the close) is logged instead of crashing the process.
 */
export function mysqlDriver(limits: MysqlSessionLimits): typeof mysql2 {
  const createPool = ((options: mysql2.PoolOptions) => {
    const pool = mysql2.createPool(options);
    pool.on('connection', (raw) => {
      const conn = raw as unknown as PooledConnection;
      conn.on('error', (err) => log.warn(`database connection closed: ${err.message}`));
      const stmt = sessionStatement(conn._handshakePacket?.serverVersion ?? '', limits);
      conn.query(stmt.sql, stmt.params, (err) => {
        if (err) log.error(`could not set the session limits (${stmt.sql}): ${err.message}`);
      });
    });
    return pool;
  }) as typeof mysql2.createPool;
  return { ...mysql2, createPool };
}
