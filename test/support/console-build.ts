import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
export const CONSOLE_DIST = join(root, 'dist', 'console');

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, f) => Math.max(m, newestMtime(join(path, f))), st.mtimeMs);
}

/**
 * Builds the console (vite) when dist/console is missing or older than its sources, so the browser
 * suites test the current code from a clean clone too. Called once per run from the e2e global setup.
 */
export function ensureConsoleBuilt(): void {
  const index = join(CONSOLE_DIST, 'index.html');
  const sources = [
    'console/src',
    'console/public',
    'console/index.html',
    'console/vite.config.mts',
    'clients/typescript',
  ].map((p) => join(root, p));
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.map(newestMtime))) return;
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      join(root, 'console', 'vite.config.mts'),
      '--logLevel',
      'warn',
    ],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
