// Prints the console bundle's gzipped JavaScript size and fails above the budget (300 KB), so a heavy
// dependency cannot slip into the console unnoticed. Run by `npm run build:console` after vite build.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUDGET_BYTES = 300 * 1024;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const assets = join(root, 'dist', 'console', 'assets');

export function gzippedJsBytes(dir = assets) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bytes = gzippedJsBytes();
  const line = `console JavaScript: ${(bytes / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB)`;
  if (bytes > BUDGET_BYTES) {
    console.error(`${line}: over budget`);
    process.exit(1);
  }
  console.log(line);
}
