import { ensureConsoleBuilt } from './console-build';
import { alive, dropDatabasesOfEndedRuns, prepareRunTemplate, TEST_MYSQL_URL } from './database';

/**
 * Builds the developer console if its sources changed (the browser suites load it), on a MySQL run
 * drops databases left by earlier, interrupted runs (never those of a run still going), and migrates
 * the run's template database, which every app boot of every suite copies.
 */
export default async function globalSetup(): Promise<void> {
  ensureConsoleBuilt();
  if (TEST_MYSQL_URL) await dropDatabasesOfEndedRuns(alive);
  await prepareRunTemplate();
}
