import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Connection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';

/*
 * Every app boot of the e2e suites used to run all migrations on an empty database (on the server
 * dialect about 2.5-4 s a boot, over 150 boots a run). Instead the run's global setup migrates one
 * database once, keeps it as a template, and every suite hands out copies: the embedded file is
 * copied; on a server the tables are created from the template's own CREATE TABLE statements and its
 * rows (the migrations table, seed rows) copied with INSERT ... SELECT. The app then finds its schema
 * up to date. A process the global setup did not prepare (no template named in its environment)
 * migrates its own once. The migrations suite still starts from an empty database
 * (`freshDatabaseUrl({ migrated: false })`).
 */

/** The environment variable naming this run's template: the embedded file, or the server template's description. */
const FILE_TEMPLATE_ENV = 'TEST_MIGRATED_SQLITE';
const SERVER_TEMPLATE_ENV = 'TEST_MIGRATED_SERVER';

/** A migrated server database kept for the run: its tables' DDL, and the tables that hold rows. */
interface ServerTemplate {
  database: string;
  creates: string[];
  tablesWithRows: string[];
}

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

async function migrateFile(): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'msg-e2e-template-')), 'template.sqlite');
  await migrate(`sqlite:${path}`);
  return path;
}

let fileTemplate: Promise<string> | null = null;

/** A copy of the run's migrated embedded database at `target`. */
export async function copyMigratedFile(target: string): Promise<void> {
  const shared = process.env[FILE_TEMPLATE_ENV];
  fileTemplate ??= shared && existsSync(shared) ? Promise.resolve(shared) : migrateFile();
  copyFileSync(await fileTemplate, target);
}

let serverTemplate: Promise<ServerTemplate> | null = null;

/**
 * Gives the empty database `name` (the connection's server) the schema and rows of the run's migrated
 * template. `scratch` names a database this process may create and migrate when it has no template.
 */
export async function fillMigratedDatabase(
  conn: Connection,
  name: string,
  scratch: { name: string; url: string },
): Promise<void> {
  const shared = process.env[SERVER_TEMPLATE_ENV];
  serverTemplate ??=
    shared && existsSync(shared)
      ? Promise.resolve(JSON.parse(readFileSync(shared, 'utf8')) as ServerTemplate)
      : migrateServerTemplate(conn, scratch);
  const template = await serverTemplate;
  await conn.query(`USE \`${name}\``);
  await conn.query('SET FOREIGN_KEY_CHECKS = 0');
  try {
    for (const ddl of template.creates) await conn.query(ddl);
    for (const t of template.tablesWithRows)
      await conn.query(`INSERT INTO \`${name}\`.\`${t}\` SELECT * FROM \`${template.database}\`.\`${t}\``);
  } finally {
    await conn.query('SET FOREIGN_KEY_CHECKS = 1');
  }
}

/** Creates and migrates `scratch` (kept: copies read its rows) and describes it. */
async function migrateServerTemplate(
  conn: Connection,
  scratch: { name: string; url: string },
): Promise<ServerTemplate> {
  await conn.query(`CREATE DATABASE \`${scratch.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  await migrate(scratch.url);
  const [tables] = await conn.query(
    "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
    [scratch.name],
  );
  const template: ServerTemplate = { database: scratch.name, creates: [], tablesWithRows: [] };
  for (const { t } of tables as { t: string }[]) {
    const [created] = await conn.query(`SHOW CREATE TABLE \`${scratch.name}\`.\`${t}\``);
    template.creates.push((created as Record<string, string>[])[0]['Create Table']);
    const [some] = await conn.query(`SELECT 1 FROM \`${scratch.name}\`.\`${t}\` LIMIT 1`);
    if ((some as unknown[]).length) template.tablesWithRows.push(t);
  }
  return template;
}

/**
 * The global setup's part: migrates the run's template once (the embedded file, or on a server the
 * database `scratch`) and names it in the environment the test workers inherit.
 */
export async function prepareMigratedTemplate(server?: {
  conn: Connection;
  scratch: { name: string; url: string };
}): Promise<void> {
  if (!server) {
    process.env[FILE_TEMPLATE_ENV] = await migrateFile();
    return;
  }
  const template = await migrateServerTemplate(server.conn, server.scratch);
  const path = join(mkdtempSync(join(tmpdir(), 'msg-e2e-template-')), 'server-template.json');
  writeFileSync(path, JSON.stringify(template));
  process.env[SERVER_TEMPLATE_ENV] = path;
}

/** The global teardown's part: removes the template's files and returns the server template's database, if any. */
export function releaseMigratedTemplate(): string | null {
  const file = process.env[FILE_TEMPLATE_ENV];
  const server = process.env[SERVER_TEMPLATE_ENV];
  const database =
    server && existsSync(server) ? (JSON.parse(readFileSync(server, 'utf8')) as ServerTemplate).database : null;
  for (const path of [file, server]) if (path) rmSync(dirname(path), { recursive: true, force: true });
  delete process.env[FILE_TEMPLATE_ENV];
  delete process.env[SERVER_TEMPLATE_ENV];
  return database;
}
