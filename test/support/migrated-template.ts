import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';

/*
 * Every app boot of the e2e suites used to run all migrations on an empty database (on the server
 * dialect about 2.5-4 s a boot, over 150 boots a run). Instead each test process migrates one
 * database once, keeps it as a template, and hands out copies: the embedded file is copied; on a
 * server the tables are created from the template's own CREATE TABLE statements and its rows (the
 * migrations table, seed rows) inserted (about 0.7 s). The app then finds its schema up to date.
 * The migrations suite still starts from an empty database (`freshDatabaseUrl({ migrated: false })`).
 */

/** Migrates a database at `url` (the app's own DataSource options and migrations, as it runs them, without its log line). */
async function migrate(url: string): Promise<void> {
  const options = buildDataSourceOptions(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
  const ds = await new DataSource({ ...options, migrationsRun: false }).initialize();
  try {
    await ds.runMigrations({ transaction: 'all' });
  } finally {
    await ds.destroy();
  }
}

let fileTemplate: Promise<string> | null = null;

/** A copy of this process's migrated embedded database at `target`. */
export async function copyMigratedFile(target: string): Promise<void> {
  fileTemplate ??= (async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'msg-e2e-template-')), 'template.sqlite');
    await migrate(`sqlite:${path}`);
    return path;
  })();
  copyFileSync(await fileTemplate, target);
}

/** What a migrated server database holds: its tables' DDL, then the rows the migrations wrote. */
interface Schema {
  creates: string[];
  rows: { table: string; columns: string[]; values: unknown[][] }[];
}

let serverTemplate: Promise<Schema> | null = null;

/**
 * Gives the empty database `name` (the connection's server) the schema and rows of a migrated one.
 * `scratch` names a database this process may create, migrate, read and drop once.
 */
export async function fillMigratedDatabase(
  conn: Connection,
  name: string,
  scratch: { name: string; url: string },
): Promise<void> {
  serverTemplate ??= readSchema(conn, scratch);
  const schema = await serverTemplate;
  await conn.query(`USE \`${name}\``);
  await conn.query('SET FOREIGN_KEY_CHECKS = 0');
  try {
    for (const ddl of schema.creates) await conn.query(ddl);
    for (const r of schema.rows) {
      const cols = r.columns.map((c) => `\`${c}\``).join(', ');
      const tuple = `(${r.columns.map(() => '?').join(', ')})`;
      await conn.query(
        `INSERT INTO \`${r.table}\` (${cols}) VALUES ${r.values.map(() => tuple).join(', ')}`,
        r.values.flat(),
      );
    }
  } finally {
    await conn.query('SET FOREIGN_KEY_CHECKS = 1');
  }
}

async function readSchema(conn: Connection, scratch: { name: string; url: string }): Promise<Schema> {
  await conn.query(`CREATE DATABASE \`${scratch.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  try {
    await migrate(scratch.url);
    const [tables] = await conn.query(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
      [scratch.name],
    );
    const schema: Schema = { creates: [], rows: [] };
    for (const { t } of tables as { t: string }[]) {
      const [created] = await conn.query(`SHOW CREATE TABLE \`${scratch.name}\`.\`${t}\``);
      schema.creates.push((created as Record<string, string>[])[0]['Create Table']);
      const [rows] = await conn.query({ sql: `SELECT * FROM \`${scratch.name}\`.\`${t}\``, rowsAsArray: true });
      const [cols] = await conn.query(
        'SELECT column_name AS c FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position',
        [scratch.name, t],
      );
      if ((rows as unknown[][]).length)
        schema.rows.push({ table: t, columns: (cols as { c: string }[]).map((c) => c.c), values: rows as unknown[][] });
    }
    return schema;
  } finally {
    await conn.query(`DROP DATABASE IF EXISTS \`${scratch.name}\``);
  }
}
