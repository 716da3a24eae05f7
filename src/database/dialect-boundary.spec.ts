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
});
