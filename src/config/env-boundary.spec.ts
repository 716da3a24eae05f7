import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { AppConfig } from './app-config';

const SRC = join(__dirname, '..');

/** Reads of the environment that belong in src/config only. */
const FORBIDDEN: { what: string; pattern: RegExp }[] = [
  { what: 'process.env', pattern: /\bprocess\s*\.\s*env\b/ },
  // The string lookups AppConfig used to offer (config.optional('SMTP_HOST'), config.int('X', ...)).
  {
    what: 'a lookup of a variable by name',
    pattern: /\.(?:optional|required|int|bool|string)\(\s*['"`][A-Z][A-Z0-9_]*['"`]/,
  },
  { what: 'an env object read by name', pattern: /\benv(?:\.[A-Z][A-Z0-9_]*\b|\[\s*['"`][A-Z])/ },
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the environment is read only in src/config', () => {
  const files = tsFiles(SRC).filter((f) => !relative(SRC, f).startsWith(`config${sep}`));

  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.map((f) => relative(SRC, f))).toContain('main.ts');
  });

  it('no file outside src/config reads process.env or looks a variable up by name', () => {
    const offences = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          FORBIDDEN.filter((f) => f.pattern.test(line)).map(
            (f) => `${relative(SRC, file)}:${i + 1}: ${f.what}: ${line.trim()}`,
          ),
        ),
    );
    expect(offences).toEqual([]);
  });

  it('AppConfig offers typed sections only, no lookup methods', () => {
    expect(Object.getOwnPropertyNames(AppConfig.prototype)).toEqual(['constructor']);
  });

  it('the patterns catch what they are meant to', () => {
    const caught = (line: string) => FORBIDDEN.some((f) => f.pattern.test(line));
    expect(
      [
        'const x = process.env.PORT;',
        "config.optional('SMTP_HOST')",
        "this.config.int('BULK_LEASE_MS', 1, 2)",
        'env.NODE_ENV',
        "env['X']",
      ].every(caught),
    ).toBe(true);
    expect(
      [
        "col.int('row_index')",
        "col.bool('is_default', false)",
        "'WAHA_BASE_URL is not configured'",
        'config.smtp.host',
      ].some(caught),
    ).toBe(false);
  });
});
