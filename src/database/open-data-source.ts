import { Logger } from '@nestjs/common';
import { createConnection } from 'mysql2/promise';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { MYSQL_COLLATION } from './collation';
import { isUnknownDatabase } from './db-errors';

const logger = new Logger('Database');

/** DB_CREATE=true on MySQL: create the database if it is missing (before TypeORM connects to it). */
export async function ensureDatabase(config: AppConfig): Promise<void> {
  if (config.database.type === 'mysql' && config.database.create) await createMysqlDatabase(config.database);
}

/**
 * Connects, and runs the migrations itself (not through `migrationsRun`) so the start-up log names
 * the ones it applied. An unknown MySQL database gets one line saying what to do.
 */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  const ds = new DataSource({ ...options, migrationsRun: false });
  try {
    await ds.initialize();
  } catch (err) {
    if (options.type === 'mysql' && isUnknownDatabase(err)) {
      const name = options.database ?? '';
      logger.error(
        `Database "${name}" does not exist on ${options.host}:${options.port}: create it (CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE ${MYSQL_COLLATION}) or start with DB_CREATE=true to let the service create it.`,
      );
    }
    throw err;
  }
  try {
    const applied = await ds.runMigrations({ transaction: 'all' });
    logger.log(
      applied.length
        ? `Migrations applied: ${applied.map((m) => m.name).join(', ')}`
        : `Schema up to date (${ds.migrations.length} migrations)`,
    );
  } catch (err) {
    await ds.destroy().catch(() => undefined);
    throw err;
  }
  return ds;
}

/** CREATE DATABASE IF NOT EXISTS with the charset and collation the tables and connections use. */
async function createMysqlDatabase(db: Extract<AppConfig['database'], { type: 'mysql' }>): Promise<void> {
  const conn = await createConnection({ host: db.host, port: db.port, user: db.username, password: db.password });
  try {
    const [result] = await conn.query(
      `CREATE DATABASE IF NOT EXISTS \`${db.database.replace(/`/g, '``')}\` CHARACTER SET utf8mb4 COLLATE ${MYSQL_COLLATION}`,
    );
    // warningStatus 1: it existed already (IF NOT EXISTS turns the error into a note).
    if ((result as { warningStatus?: number }).warningStatus === 0)
      logger.log(`Database "${db.database}" created (DB_CREATE=true)`);
  } catch (err) {
    logger.error(
      `DB_CREATE=true, but creating database "${db.database}" failed (${(err as Error).message}): ask whoever manages ${db.host}:${db.port} to create it.`,
    );
    throw err;
  } finally {
    await conn.end();
  }
}
