// TypeORM CLI entry (e.g. `npm run migration:run`): the same DataSource options the app uses.
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { buildDataSourceOptions } from './src/database/data-source-options';

export default new DataSource(buildDataSourceOptions(loadConfig(process.env)));
