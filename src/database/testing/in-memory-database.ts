import 'reflect-metadata';
import { DataSource, DataSourceOptions } from 'typeorm';
import { loadConfig } from '../../config/app-config';
import { buildDataSourceOptions } from '../data-source-options';
import { SqliteGate } from '../sqlite-gate';
import { UnitOfWork } from '../unit-of-work';

/**
 * For unit specs of code above database/: the embedded database in memory, every migration applied,
 * with its gate and a unit of work, so a spec runs real statements without naming a dialect.
 * `entities`: the TypeORM entities the code under test reads through repositories.
 */
export async function openInMemoryDatabase(
  entities: DataSourceOptions['entities'] = [],
): Promise<{ ds: DataSource; uow: UnitOfWork }> {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', NODE_ENV: 'test' });
  const ds = new DataSource({ ...buildDataSourceOptions(config), entities });
  await ds.initialize();
  SqliteGate.install(ds);
  return { ds, uow: new UnitOfWork(ds) };
}
