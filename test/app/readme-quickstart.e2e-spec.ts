import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DemoAccountBootstrap } from '../../src/accounts/demo-account.bootstrap';
import { createTestApp, TestApp, waitFor } from '../support/app';

const run = promisify(execFile);

interface QuickstartBlock {
  script: string;
  expects: string[];
}

/**
 * The README's quick-start commands: every ```bash block right after a `<!-- quickstart: ... -->`
 * comment, with the `expect '...'` strings the comment lists. The commands live only in the README.
 */
function quickstartBlocks(markdown: string): QuickstartBlock[] {
  const re = /<!-- quickstart:([^>]*)-->\s*```bash\n([\s\S]*?)\n```/g;
  return [...markdown.matchAll(re)].map((m) => ({
    script: m[2],
    expects: [...m[1].matchAll(/expect '([^']*)'/g)].map((e) => e[1]),
  }));
}

describe("README quick start (the README's curl commands against a started app)", () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    // curl is what a reader pastes into; without it this suite cannot say anything, so it fails loudly.
    execFileSync('curl', ['--version']);
    // The demo account is what a reader has after `npm start` (embedded database only).
    t = await createTestApp({
      env: { DEMO_ACCOUNT: 'true', BULK_VALIDATION_TICK_MS: '20', BULK_DISPATCH_TICK_MS: '20' },
    });
    const demo = t.app.get(DemoAccountBootstrap).created;
    apiKey = demo
      ? demo.key
      : (await t.createAccount({ walletBalance: 10_000, freeMessages: 100, planName: 'Demo', messageQuota: 1000 })).key;
  });
  afterAll(async () => {
    await t.close();
  });

  it('every quick-start block exits 0 and prints what the README says; the messages reach the sandbox', async () => {
    const blocks = quickstartBlocks(readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8'));
    expect(blocks).toHaveLength(4);
    for (const b of blocks) expect(b.expects.length).toBeGreaterThan(0);

    // One shell, as a reader pastes them in order (later blocks use variables earlier ones set);
    // `set -e` stops at the first failing command, and a marker before each block says where.
    const script = ['set -euo pipefail', ...blocks.map((b, i) => `printf '\\n::block %d::\\n' ${i}\n${b.script}`)].join(
      '\n',
    );
    const result = await run('bash', ['-c', script], {
      cwd: mkdtempSync(join(tmpdir(), 'msg-quickstart-')),
      env: { PATH: process.env.PATH, BASE: t.baseUrl, API_KEY: apiKey },
      timeout: 60_000,
    }).catch((err: { code?: number; stdout?: string; stderr?: string }) => {
      throw new Error(`quick start failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
    });
    const outputs = result.stdout.split(/\n::block \d+::\n/).slice(1);
    expect(outputs).toHaveLength(blocks.length);
    blocks.forEach((b, i) => {
      for (const e of b.expects)
        expect({ block: i, output: outputs[i] }).toEqual({ block: i, output: expect.stringContaining(e) });
    });

    // What the commands did, read back through the operator's sandbox view.
    const sandbox = async () =>
      (await t.admin('get', '/admin/v1/sandbox/messages?channel=local_sms').expect(200)).body.data.messages as {
        to: string;
        text: string;
      }[];
    const delivered = await waitFor(
      async () => {
        const m = await sandbox();
        return m.length === 3 ? m : null;
      },
      { what: 'three sandbox deliveries', timeoutMs: 20_000 },
    );
    expect(delivered.map((d) => [d.to, d.text]).sort()).toEqual([
      ['+966500000001', 'Hello from the quick start'],
      ['+966500000002', 'Hello'],
      ['+966500000003', 'Your order A-1001 is ready'],
    ]);
  });
});
