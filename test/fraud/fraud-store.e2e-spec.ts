import { DataSource } from 'typeorm';
import { tallyStatement } from '../../src/fraud/prefix-counters.repository';
import { TestApp } from '../support/app';
import { isMysqlRun } from '../support/database';
import { expectError } from '../support/envelope';
import { fraudApp, fraudHelpers, saNumber } from './fraud-helpers';
import { accountIdOf } from '../../src/common/account-id';

// The database store of the counters, whatever the run's Redis (CI's MariaDB run sets REDIS_URL for
// every app, so the Redis store is what the other suites exercise there), and the plan of its read.
describe('Fraud guard: counters in the database (e2e)', () => {
  let t: TestApp;
  const h = fraudHelpers(() => t);
  beforeAll(async () => {
    t = await fraudApp({ REDIS_URL: '', FRAUD_MIN_SENDS: '3' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts, blocks, lifts and judges afresh with no Redis', async () => {
    const acc = await t.createAccount();
    expect(await h.signIn(acc, saNumber('5088', 1))).toBe(200);
    // Judged from 3 codes: 1 verified of 10 is 10%, not below the threshold, so the 11th goes out ...
    for (let i = 2; i <= 11; i++) expect((await h.send(acc, saNumber('5088', i))).status).toBe(201);
    // ... and 1 of 11 is below it: the 12th is refused and raises the block.
    expectError(await h.send(acc, saNumber('5088', 12)), 429, 'FRAUD_SUSPECTED');
    const rows: { sends: number | string; verified: number | string }[] = await t.app
      .get(DataSource)
      .query('SELECT SUM(sends) AS sends, SUM(verified) AS verified FROM fraud_prefix_counters WHERE account_id = ?', [
        acc.id,
      ]);
    expect(rows.map((r) => [Number(r.sends), Number(r.verified)])).toEqual([[11, 1]]);
    const [block] = (await h.blocks(acc, '?active=true')).body.data.blocks;
    expect(block).toMatchObject({ reason: 'low_conversion', sends: 11, verified: 1 });
    expect((await h.lift(acc, block.id)).status).toBe(200);
    const after: { n: number | string }[] = await t.app
      .get(DataSource)
      .query('SELECT COUNT(*) AS n FROM fraud_prefix_counters WHERE account_id = ?', [acc.id]);
    expect(Number(after[0].n)).toBe(0);
    expect(await h.signIn(acc, saNumber('5088', 13))).toBe(200);
  });

  it('reads a code’s admission by two index seeks, never a scan', async () => {
    const stmt = tallyStatement(accountIdOf('acc_x'), '+9665088', Date.now(), Math.floor(Date.now() / 60_000) - 60);
    const ds = t.app.get(DataSource);
    if (isMysqlRun()) {
      const plan: { table: string; key: string | null; type: string }[] = await ds.query(
        `EXPLAIN ${stmt.sql}`,
        stmt.params,
      );
      const byTable = plan.filter((p) => p.table !== null && !String(p.table).startsWith('<'));
      // The blocks side seeks by its active key or by its end time (only blocks in force match either).
      expect(byTable.map((p) => [p.table, p.key])).toEqual([
        ['fraud_prefix_counters', 'PRIMARY'],
        ['fraud_blocks', expect.stringMatching(/^(ux_fraud_blocks_active|ix_fraud_blocks_until)$/)],
      ]);
      for (const p of byTable) expect(p.type).not.toBe('ALL');
    } else {
      const plan: { detail: string }[] = await ds.query(`EXPLAIN QUERY PLAN ${stmt.sql}`, stmt.params);
      const text = plan.map((p) => p.detail).join(' | ');
      expect(text).toMatch(
        /SEARCH fraud_prefix_counters USING (PRIMARY KEY|INDEX sqlite_autoindex_fraud_prefix_counters_1) \(account_id=\? AND prefix=\? AND minute>\?\)/,
      );
      expect(text).toMatch(/SEARCH fraud_blocks USING INDEX ux_fraud_blocks_active/);
      expect(text).not.toMatch(/SCAN fraud_/);
    }
  });
});
