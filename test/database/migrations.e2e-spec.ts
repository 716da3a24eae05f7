import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS } from '../../src/database/migrations';
import { MYSQL_COLLATION } from '../../src/database/collation';
import { dropDatabase, freshDatabaseUrl, isMysqlRun } from '../support/database';

/** Every migration runs from empty, reverts completely, and runs again, on this run's dialect. */
describe('Migrations (e2e)', () => {
  let url: string;
  let ds: DataSource;

  beforeAll(async () => {
    url = await freshDatabaseUrl({ migrated: false });
    ds = new DataSource({ ...buildDataSourceOptions(loadConfig({ DATABASE_URL: url })), migrationsRun: false });
    await ds.initialize();
  });
  afterAll(async () => {
    await ds.destroy();
    await dropDatabase(url);
  });

  const tables = async (): Promise<string[]> => {
    const rows: Record<string, string>[] =
      ds.options.type === 'mysql'
        ? await ds.query('SHOW TABLES')
        : await ds.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    return rows
      .map((r) => Object.values(r)[0])
      .filter((n) => n !== 'migrations')
      .sort();
  };

  it('up from empty, down to empty, up again', async () => {
    expect(await tables()).toEqual([]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((M) => new M().name));
    const created = await tables();
    expect(created).toEqual(expect.arrayContaining(['accounts', 'api_keys']));

    for (let i = 0; i < MIGRATIONS.length; i++) await ds.undoLastMigration({ transaction: 'each' });
    expect(await tables()).toEqual([]);

    await ds.runMigrations({ transaction: 'each' });
    expect(await tables()).toEqual(created);
  });

  // Only meaningful on MySQL/MariaDB (SQLite has no collations to drift), so defined only there.
  if (isMysqlRun()) {
    it('MySQL tables and text columns use the connection collation (claim queries must not sort every row)', async () => {
      const tables: { TABLE_NAME: string; TABLE_COLLATION: string }[] = await ds.query(
        'SELECT TABLE_NAME, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
      );
      expect(tables.length).toBeGreaterThan(10);
      expect(tables.filter((r) => r.TABLE_NAME !== 'migrations' && r.TABLE_COLLATION !== MYSQL_COLLATION)).toEqual([]);
      const columns: { TABLE_NAME: string; COLUMN_NAME: string; COLLATION_NAME: string }[] = await ds.query(
        "SELECT TABLE_NAME, COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> 'migrations' AND COLLATION_NAME IS NOT NULL",
      );
      expect(columns.length).toBeGreaterThan(50);
      expect(columns.filter((c) => c.COLLATION_NAME !== MYSQL_COLLATION)).toEqual([]);
    });
  }
});
