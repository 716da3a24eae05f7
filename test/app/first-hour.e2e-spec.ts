import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MYSQL_COLLATION } from '../../src/database/collation';
import { MIGRATIONS } from '../../src/database/migrations';
import { ADMIN_TOKEN } from '../support/app';
import { TEST_DB_PREFIX, TEST_MYSQL_URL, isMysqlRun, serverConnection } from '../support/database';
import { SpawnedApp, spawnApp } from '../support/spawn-app';

const run = promisify(execFile);
const TIMEOUT = 300_000;

/** `npm start` as a new user runs it: development, demo account on, default log level. */
function firstStartEnv(databaseUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    DEMO_ACCOUNT: 'true',
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    SCHEDULERS_ENABLED: 'false',
  };
}

async function getAccount(url: string, key: string): Promise<number> {
  return (await fetch(`${url}/api/v2/account`, { headers: { 'X-API-Key': key } })).status;
}

describe('The first start (e2e, the real process)', () => {
  let app: SpawnedApp | undefined;
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  // The demo account exists on the embedded database only, so this runs in the SQLite run.
  if (!isMysqlRun()) {
    it(
      'prints the demo key last with the URL, saves it 0600 beside the database, no route map at info; the printed key command works',
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'msg-first-'));
        app = spawnApp(firstStartEnv(`sqlite:${join(dir, 'data', 'messaging.sqlite')}`));
        const out = await app.waitForOutput(/Try it: .*\n/);
        const lines = out.trimEnd().split('\n');
        const [, key, url] =
          /^Try it: curl -H "X-API-Key: (msk_[\w-]{40})" (http:\/\/127\.0\.0\.1:\d+)\/api\/v2\/account$/.exec(
            lines[lines.length - 1],
          ) ?? [];
        expect(key).toBeDefined();
        expect(lines[lines.length - 2]).toBe(`  ${key}`);
        expect(lines[lines.length - 3]).toMatch(
          /^Demo account acc_\w+ created\. Its owner API key \(shown once; also saved to .*demo-api-key\.txt, mode 0600\):$/,
        );
        // The whole start-up is a few lines: no per-route or per-module lines at the default level.
        expect(out).not.toContain('Mapped {');
        expect(out).not.toContain('InstanceLoader');
        expect(lines.length).toBeLessThan(15);

        const file = join(dir, 'data', 'demo-api-key.txt');
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(readFileSync(file, 'utf8')).toBe(`${key}\n`);
        expect(await getAccount(url, key)).toBe(200);

        // The printed command for more keys, pasted into a shell that has ADMIN_TOKEN exported.
        const command = lines.find((l) => l.includes('/api-keys'))!.trim();
        expect(command).toContain('"Authorization: Bearer $ADMIN_TOKEN"');
        const { stdout } = await run('bash', ['-c', command], { env: { PATH: process.env.PATH, ADMIN_TOKEN } });
        const issued = JSON.parse(stdout) as { data: { apiKey: { key: string; role: string } } };
        expect(issued.data.apiKey.role).toBe('owner');
        expect(await getAccount(url, issued.data.apiKey.key)).toBe(200);
      },
      TIMEOUT,
    );
  }

  // MariaDB/MySQL only: a DATABASE_URL naming a database that does not exist.
  if (isMysqlRun()) {
    const missing = () => {
      const u = new URL(TEST_MYSQL_URL);
      u.pathname = `/${TEST_DB_PREFIX}${process.pid}_missing_${Date.now()}`;
      return { url: u.toString(), name: u.pathname.slice(1) };
    };
    const server = () => serverConnection(TEST_MYSQL_URL);
    const schema = async (name: string) => {
      const conn = await server();
      try {
        const [rows] = await conn.query(
          'SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS coll FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
          [name],
        );
        return (rows as { cs: string; coll: string }[])[0] ?? null;
      } finally {
        await conn.end();
      }
    };

    it(
      'an unknown database stops start-up with exit 1 and one line saying what to do; nothing is created',
      async () => {
        const db = missing();
        app = spawnApp({ ...firstStartEnv(db.url), DEMO_ACCOUNT: 'false' });
        expect(await app.exited).toBe(1);
        const hint = app
          .output()
          .split('\n')
          .filter((l) => l.includes(`Database "${db.name}" does not exist`));
        expect(hint).toHaveLength(1);
        expect(hint[0]).toContain(`CREATE DATABASE \`${db.name}\` CHARACTER SET utf8mb4 COLLATE ${MYSQL_COLLATION}`);
        expect(hint[0]).toContain('DB_CREATE=true');
        expect(await schema(db.name)).toBeNull();
      },
      TIMEOUT,
    );

    it(
      'DB_CREATE=true creates it (utf8mb4, the expected collation), starts and logs the migrations it applied',
      async () => {
        const db = missing();
        try {
          app = spawnApp({ ...firstStartEnv(db.url), DEMO_ACCOUNT: 'false', DB_CREATE: 'true' });
          const out = await app.waitForOutput(/listening on (http:\S+)/);
          expect(out).toContain(`Database \\"${db.name}\\" created (DB_CREATE=true)`);
          expect(out).toContain(`"msg":"Migrations applied: ${MIGRATIONS.map((m) => m.name).join(', ')}"`);
          expect(await schema(db.name)).toEqual({ cs: 'utf8mb4', coll: MYSQL_COLLATION });
          const url = /listening on (http:\S+)/.exec(out)![1];
          expect((await fetch(`${url}/health/ready`)).status).toBe(200);
          await app.stop();

          // Second start on the same database: nothing to create or apply, and that is said.
          app = spawnApp({ ...firstStartEnv(db.url), DEMO_ACCOUNT: 'false', DB_CREATE: 'true' });
          const again = await app.waitForOutput(/listening on/);
          expect(again).not.toContain('created (DB_CREATE=true)');
          expect(again).toMatch(/"msg":"Schema up to date \(\d+ migrations\)"/);
        } finally {
          await app?.stop();
          const conn = await server();
          await conn.query(`DROP DATABASE IF EXISTS \`${db.name}\``).finally(() => conn.end());
        }
      },
      TIMEOUT,
    );
  }
});
