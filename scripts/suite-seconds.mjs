// node scripts/suite-seconds.mjs <jest --json output>... : writes test/support/suite-seconds.json, each
// test file's longest run time in seconds over the given results (the order hint of
// test/support/test-sequencer.js). Results under a clone's .ci/out/ (a `.ci/run`) are read relative to
// that clone; others relative to this repository.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = {};
for (const file of process.argv.slice(2)) {
  const absolute = resolve(file);
  const ciOut = absolute.lastIndexOf('/.ci/out/');
  const base = ciOut >= 0 ? absolute.slice(0, ciOut) : root;
  for (const r of JSON.parse(readFileSync(file, 'utf8')).testResults) {
    const path = relative(base, r.name);
    const s = Math.round((r.endTime - r.startTime) / 100) / 10;
    seconds[path] = Math.max(seconds[path] ?? 0, s);
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join(root, 'test/support/suite-seconds.json'), JSON.stringify(sorted, null, 2) + '\n');
console.log(`${Object.keys(sorted).length} files`);
