import { createConnection } from 'mysql2/promise';
import { TEST_DB_PREFIX, TEST_MYSQL_URL } from './database';

/** MySQL run: drop databases left by an earlier, interrupted run. */
export default async function globalSetup(): Promise<void> {
  if (!TEST_MYSQL_URL) return;
  const u = new URL(TEST_MYSQL_URL);
  const conn = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) });
  try {
    const [rows] = await conn.query(`SHOW DATABASES LIKE '${TEST_DB_PREFIX}%'`);
    for (const row of rows as Record<string, string>[]) {
      await conn.query(`DROP DATABASE IF EXISTS \`${Object.values(row)[0]}\``);
    }
  } finally {
    await conn.end();
  }
}
