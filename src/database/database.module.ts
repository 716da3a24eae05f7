import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { isUnknownDatabase } from './db-errors';
import { ensureDatabase, openDataSource } from './open-data-source';
import { SqliteGate } from './sqlite-gate';
import { UnitOfWork } from './unit-of-work';

const OPEN = new Set<DataSource>();

function trackDataSource(ds: DataSource): DataSource {
  OPEN.add(ds);
  // The embedded database's one connection: units of work are serialised on it (sqlite-gate.ts).
  SqliteGate.install(ds);
  return ds;
}

/**
 * DataSources this process opened and has not closed. A module whose compilation fails after the
 * database connected (a provider refusing its configuration) never gets an app to close; callers
 * that build modules (the e2e factory) use this to release such connections.
 */
export function openDataSources(): DataSource[] {
  for (const ds of OPEN) if (!ds.isInitialized) OPEN.delete(ds);
  return [...OPEN];
}

/** The DataSource and the unit of work every module uses (global: infrastructure, like config). */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => {
        await ensureDatabase(config);
        return {
          ...buildDataSourceOptions(config),
          autoLoadEntities: true,
          // A failing first connection must fail fast (and readably) rather than be retried silently;
          // a missing database is never retried (waiting does not create it).
          retryAttempts: config.database.connectRetries,
          retryDelay: 2000,
          toRetry: (err: unknown) => !isUnknownDatabase(err),
        };
      },
      dataSourceFactory: async (options) => trackDataSource(await openDataSource(options!)),
    }),
  ],
  providers: [UnitOfWork],
  exports: [UnitOfWork],
})
export class DatabaseModule {}
