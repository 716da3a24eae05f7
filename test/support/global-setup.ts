import { ensureConsoleBuilt } from './console-build';
import { alive, dropDatabasesOfEndedRuns, TEST_MYSQL_URL } from './database';

/**
 * Builds the developer console if its sources changed (the browser suites load it), and on a MySQL
 * run drops databases left by earlier, interrupted runs (never those of a run still going).
 */
export default async function globalSetup(): Promise<void> {
  ensureConsoleBuilt();
  if (!TEST_MYSQL_URL) return;
  await dropDatabasesOfEndedRuns(alive);
}
