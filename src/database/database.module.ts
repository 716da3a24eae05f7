import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { isUnknownDatabase } from './db-errors';
import { ensureDatabase, openDataSource } from './open-data-source';
import { serializeSqliteTransactions } from './sqlite-serializer';

const OPEN = new Set<DataSource>();

function trackDataSource(ds: DataSource): DataSource {
  OPEN.add(ds);
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
      // SQLite: one shared connection, so transactions are serialised (see sqlite-serializer.ts).
      dataSourceFactory: async (options) => trackDataSource(serializeSqliteTransactions(await openDataSource(options!))),
    }),
  ],
})
export class DatabaseModule {}
