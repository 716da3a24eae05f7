import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Feature code reaches the database only through the unit of work (src/database): it never names a
 * dialect (the unit of work's capabilities say what differs) nor reaches into TypeORM's driver.
 */
describe('database boundary', () => {
  const files = sources(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

  it('no file outside database/ and config/ names a dialect', () => {
    const offenders = files
      .filter((f) => !f.path.startsWith('database/') && !f.path.startsWith('config/'))
      .filter((f) => /\b(sqlite|mysql2?|mariadb|innodb)\b/i.test(f.text))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('nothing reaches into TypeORM driver internals', () => {
    const offenders = files
      .filter((f) => /\.driver\s+as\b|databaseConnection|\(\s*\w+\s+as\s+unknown\s+as\s+\{\s*query/.test(f.text))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  // Typed rows: a statement that returns rows is a Query<T> whose `decode` is its record's one mapping
  // function; a raw row is opaque (RawRow) everywhere but where the driver's rows become records.
  it('only sql.ts and the unit of work see raw rows; SQL outside TypeORM entities goes through the unit of work', () => {
    const rawRows = files
      .filter((f) => !['database/sql.ts', 'database/unit-of-work.ts'].includes(f.path))
      .filter((f) => /\bRawRow\b|as\s+unknown(\[\])?\s+as\s+Row\b/.test(f.text))
      .map((f) => f.path);
    expect(rawRows).toEqual([]);
    // Raw SQL through TypeORM (`.query(...)`) skips the records' mapping functions: these only, each for
    // its reason (migrations are exempt; testing/ folders serve the specs).
    const allowed = [
      'database/unit-of-work.ts', // runs every Stmt
      'database/mysql-session.ts', // session settings on a new connection
      'database/open-data-source.ts', // creates the database before the DataSource exists
      'database/migration-helpers.ts', // DDL of migrations
      'health/readiness.service.ts', // the migrations table, to report pending migrations
      'accounts/api-keys.repository.ts', // the per-request key lookup (bench:api), decoded by toKeyCaller
    ];
    const rawSql = files
      .filter((f) => !f.path.startsWith('database/migrations/') && !f.path.includes('/testing/'))
      .filter((f) => !allowed.includes(f.path))
      .filter((f) => /\.query\s*(<[^>]*>)?\s*\(|\.getRaw(One|Many)\b/.test(f.text))
      .map((f) => f.path);
    expect(rawSql).toEqual([]);
  });
});
