import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/** A fresh database for one benchmark child: a new MariaDB schema (dropped by `drop`) or a SQLite file. */
export async function benchDatabase(name: string, mysqlUrl: string | null, collation = 'utf8mb4_general_ci'): Promise<{ databaseUrl: string; drop: () => Promise<void> }> {
  if (!mysqlUrl) return { databaseUrl: `sqlite:${join(mkdtempSync(join(tmpdir(), `${name}-`)), 'bench.sqlite')}`, drop: async () => undefined };
  const u = new URL(mysqlUrl);
  const schema = `${name.replace(/-/g, '_')}_${process.pid}`;
  const conn = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) });
  await conn.query(`CREATE DATABASE \`${schema}\` CHARACTER SET utf8mb4 COLLATE ${collation}`);
  u.pathname = `/${schema}`;
  return {
    databaseUrl: u.toString(),
    drop: async () => {
      await conn.query(`DROP DATABASE IF EXISTS \`${schema}\``);
      await conn.end();
    },
  };
}
