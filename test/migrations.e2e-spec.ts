import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { MIGRATIONS } from '../src/database/migrations';
import { dropDatabase, freshDatabaseUrl } from './support/database';

/** Every migration runs from empty, reverts completely, and runs again, on this run's dialect. */
describe('Migrations (e2e)', () => {
  let url: string;
  let ds: DataSource;

  beforeAll(async () => {
    url = await freshDatabaseUrl();
    ds = new DataSource({ ...buildDataSourceOptions(loadConfig({ DATABASE_URL: url })), migrationsRun: false });
    await ds.initialize();
  });
  afterAll(async () => {
    await ds.destroy();
    await dropDatabase(url);
  });

  const tables = async (): Promise<string[]> => {
    const rows: Record<string, string>[] = ds.options.type === 'mysql'
      ? await ds.query('SHOW TABLES')
      : await ds.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    return rows.map((r) => Object.values(r)[0]).filter((n) => n !== 'migrations').sort();
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

  it('MySQL tables use the connection collation (claim queries must not sort every row)', async () => {
    if (ds.options.type !== 'mysql') {
      expect(ds.options.type).toBe('better-sqlite3');
      return;
    }
    const rows: { TABLE_NAME: string; TABLE_COLLATION: string }[] = await ds.query(
      'SELECT TABLE_NAME, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
    );
    const wrong = rows.filter((r) => r.TABLE_NAME !== 'migrations' && r.TABLE_COLLATION !== 'utf8mb4_unicode_ci');
    expect(wrong).toEqual([]);
  });
});
