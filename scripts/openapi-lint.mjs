// Redocly's `recommended` ruleset over both committed documents. Prints every problem; exits 1 on any
// error (warnings are listed, and the README says which remain and why).
import { createConfig, lint } from '@redocly/openapi-core';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = await createConfig({ extends: ['recommended'] });
let errors = 0;
for (const name of ['public.json', 'admin.json']) {
  const problems = await lint({ ref: join(root, 'openapi', name), config });
  const e = problems.filter((p) => p.severity === 'error');
  const w = problems.filter((p) => p.severity === 'warn');
  errors += e.length;
  console.log(`${name}: ${e.length} errors, ${w.length} warnings`);
  for (const p of problems) console.log(`  ${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
}
process.exit(errors > 0 ? 1 : 0);
