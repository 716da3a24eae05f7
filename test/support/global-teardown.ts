import { alive, dropDatabasesOfEndedRuns, parentOf, releaseRunTemplate, TEST_MYSQL_URL } from './database';

/**
 * Removes the run's migrated template. On a MySQL run, then drops what this run's suites left on the
 * server (a database whose last app was closed keeping it, or never closed): those made by this
 * process or its workers, and by processes that have ended. Another run going on meanwhile keeps its own. Names them, so the suite that
 * left them can be found.
 */
export default async function globalTeardown(): Promise<void> {
  await releaseRunTemplate();
  if (!TEST_MYSQL_URL) return;
  const ours = (pid: number) => pid === process.pid || parentOf(pid) === process.pid;
  const dropped = await dropDatabasesOfEndedRuns((pid) => alive(pid) && !ours(pid));
  if (dropped.length)
    process.stderr.write(
      `global teardown: dropped ${dropped.length} test database(s) the suites left: ${dropped.join(', ')}\n`,
    );
}
