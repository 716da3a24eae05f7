import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../config/app-config';
import { buildDataSourceOptions } from '../../database/data-source-options';
import { SqliteGate } from '../../database/sqlite-gate';
import { UnitOfWork } from '../../database/unit-of-work';
import { SandboxStore } from './sandbox-store';
import { accountIdOf } from '../../common/account-id';

describe(SandboxStore.name, () => {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', NODE_ENV: 'test' });
  const REFRESH_MS = 60_000;
  let ds: DataSource;
  let sut: SandboxStore;

  beforeAll(async () => {
    ds = new DataSource(buildDataSourceOptions(config));
    await ds.initialize();
    SqliteGate.install(ds);
  });
  afterAll(async () => {
    await ds.destroy();
  });
  beforeEach(async () => {
    await ds.query('DELETE FROM sandbox_faults');
    sut = new SandboxStore(new UnitOfWork(ds), REFRESH_MS);
  });

  let n = 0;
  /** A fault written by another replica: this store's cache does not know about it. */
  async function foreignFault(f: {
    channel?: string;
    accountId?: string;
    kind?: string;
    count?: number;
  }): Promise<void> {
    await ds.query(
      'INSERT INTO sandbox_faults (id, channel, account_id, kind, remaining, created_at) VALUES (?, ?, ?, ?, ?, 0)',
      [
        `flt_test_${String(++n).padStart(4, '0')}`,
        f.channel ?? null,
        f.accountId ?? null,
        f.kind ?? 'unavailable',
        f.count ?? 1,
      ],
    );
  }

  it('consumes only faults of the call’s channel and account, oldest first, count times', async () => {
    await sut.addFault(
      { channel: 'email', accountId: accountIdOf('acc_b'), kind: 'reject', count: 2, delayMs: null },
      0,
    );
    await sut.addFault(
      { channel: null, accountId: accountIdOf('acc_b'), kind: 'rate_limit', count: 1, delayMs: null },
      0,
    );
    await sut.addFault({ channel: 'chatapp', accountId: null, kind: 'delay', count: 1, delayMs: 1500 }, 0);
    expect(await sut.takeFault('email', accountIdOf('acc_a'), 0)).toBeNull();
    expect(await sut.takeFault('local_sms', accountIdOf('acc_b'), 0)).toEqual({ kind: 'rate_limit', delayMs: null });
    expect(await sut.takeFault('email', accountIdOf('acc_b'), 0)).toEqual({ kind: 'reject', delayMs: null });
    expect(await sut.takeFault('email', accountIdOf('acc_b'), 0)).toEqual({ kind: 'reject', delayMs: null });
    expect(await sut.takeFault('email', accountIdOf('acc_b'), 0)).toBeNull();
    expect(await sut.takeFault('chatapp', accountIdOf('acc_a'), 0)).toEqual({ kind: 'delay', delayMs: 1500 });
    expect(await sut.takeFault('chatapp', accountIdOf('acc_a'), 0)).toBeNull();
  });

  it("clears one account's faults and counts those still pending; other accounts' and unscoped ones stay", async () => {
    await sut.addFault(
      { channel: null, accountId: accountIdOf('acc_a'), kind: 'unavailable', count: 1, delayMs: null },
      0,
    );
    await sut.addFault(
      { channel: 'email', accountId: accountIdOf('acc_a'), kind: 'timeout', count: 3, delayMs: null },
      0,
    );
    await sut.addFault(
      { channel: null, accountId: accountIdOf('acc_b'), kind: 'rate_limit', count: 1, delayMs: null },
      0,
    );
    await sut.addFault({ channel: 'chatapp', accountId: null, kind: 'reject', count: 1, delayMs: null }, 0);
    expect(await sut.takeFault('local_sms', accountIdOf('acc_a'), 0)).toEqual({ kind: 'unavailable', delayMs: null });
    expect(await sut.clearFaultsOf(accountIdOf('acc_a'))).toBe(1);
    expect(await sut.takeFault('email', accountIdOf('acc_a'), 0)).toBeNull();
    expect(await sut.takeFault('email', accountIdOf('acc_b'), 0)).toEqual({ kind: 'rate_limit', delayMs: null });
    expect(await sut.takeFault('chatapp', accountIdOf('acc_a'), 0)).toEqual({ kind: 'reject', delayMs: null });
    expect(await sut.clearFaultsOf(accountIdOf('acc_a'))).toBe(0);
  });

  it('while no fault exists skips the lookup until the refresh; a fault of another account keeps it on', async () => {
    expect(await sut.takeFault('local_sms', accountIdOf('acc_a'), 0)).toBeNull();
    await foreignFault({ accountId: 'acc_a' });
    expect(await sut.takeFault('local_sms', accountIdOf('acc_a'), 1)).toBeNull();
    expect(await sut.takeFault('local_sms', accountIdOf('acc_a'), REFRESH_MS)).toEqual({
      kind: 'unavailable',
      delayMs: null,
    });

    await foreignFault({ accountId: 'acc_other' });
    expect(await sut.takeFault('local_sms', accountIdOf('acc_a'), REFRESH_MS + 1)).toBeNull();
    await foreignFault({ accountId: 'acc_a', kind: 'timeout' });
    expect(await sut.takeFault('local_sms', accountIdOf('acc_a'), REFRESH_MS + 2)).toEqual({
      kind: 'timeout',
      delayMs: null,
    });
  });
});
