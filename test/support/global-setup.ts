import { createConnection } from 'mysql2/promise';
import { ensureConsoleBuilt } from './console-build';
import { TEST_DB_PREFIX, TEST_MYSQL_URL } from './database';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the developer console if its sources changed (the browser suites load it), and on a MySQL
 * run drops databases left by earlier, interrupted runs (never those of a run still going).
 */
export default async function globalSetup(): Promise<void> {
  ensureConsoleBuilt();
  if (!TEST_MYSQL_URL) return;
  const u = new URL(TEST_MYSQL_URL);
  const conn = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) });
  try {
    const [rows] = await conn.query(`SHOW DATABASES LIKE '${TEST_DB_PREFIX}%'`);
    for (const row of rows as Record<string, string>[]) {
      const name = Object.values(row)[0];
      const pid = Number(name.slice(TEST_DB_PREFIX.length).split('_')[0]);
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) continue;
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
    }
  } finally {
    await conn.end();
  }
}
