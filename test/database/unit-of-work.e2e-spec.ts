import { DataSource } from 'typeorm';
import { query, sql, Steps } from '../../src/database/sql';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { createTestApp, TestApp, waitFor } from '../support/app';

/**
 * The one unit of work (src/database/unit-of-work.ts) on the test database of this run: atomicity
 * while other work runs (on the embedded database every caller shares one connection), nesting,
 * and a deadlock or lock wait that is run again.
 */
describe('UnitOfWork (e2e)', () => {
  let t: TestApp;
  let ds: DataSource;
  let uow: UnitOfWork;

  beforeAll(async () => {
    // A short lock wait, so the lock-timeout case below takes seconds, not tens; 3 s, not 1: the first
    // case queues 22 writers on one row, and on a loaded CI box the last of them once waited past 1 s.
    t = await createTestApp({ env: { DB_LOCK_WAIT_TIMEOUT_S: '3' } });
    ds = t.app.get(DataSource);
    uow = t.app.get(UnitOfWork);
  });
  afterAll(async () => t.close());

  const wallet = async (id: string): Promise<number> =>
    (await uow.read(query((r) => Number(r.w), sql('SELECT wallet_balance AS w FROM accounts WHERE id = ?', id))))[0];
  const add = (id: string, n: number) =>
    sql('UPDATE accounts SET wallet_balance = wallet_balance + ? WHERE id = ?', n, id);

  it('a rollback undoes only its own work while other units and plain TypeORM writes run', async () => {
    const a = await t.createAccount({ walletBalance: 0 });
    const b = await t.createAccount({ walletBalance: 0 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const failing = uow.transaction(async (tx) => {
      await tx.exec(add(a.id, 1));
      await gate;
      throw new Error('roll me back');
    });
    const committed = Promise.all(Array.from({ length: 20 }, () => uow.transaction((tx) => tx.exec(add(b.id, 1)))));
    const steps = uow.steps(function* (): Steps<void> {
      yield add(b.id, 100);
    });
    const plain = ds.query('UPDATE accounts SET free_messages = free_messages + 5 WHERE id = ?', [b.id]);
    setImmediate(release);

    await expect(failing).rejects.toThrow('roll me back');
    await Promise.all([committed, steps, plain]);
    expect(await wallet(a.id)).toBe(0);
    expect(await wallet(b.id)).toBe(120);
    const [free] = await uow.read(
      query((r) => Number(r.f), sql('SELECT free_messages AS f FROM accounts WHERE id = ?', b.id)),
    );
    expect(free).toBe(5);
  });

  it('nested units join the outermost: an error after the inner ones rolls every write back', async () => {
    const a = await t.createAccount({ walletBalance: 0 });
    await expect(
      uow.transaction(async () => {
        await uow.transaction((tx) => tx.exec(add(a.id, 1)));
        await uow.steps(function* (): Steps<void> {
          yield add(a.id, 10);
        });
        await uow.exec(add(a.id, 100));
        // Reads inside see the unit's own writes.
        expect(await wallet(a.id)).toBe(111);
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await wallet(a.id)).toBe(0);
  });

  it('work a unit left running after it ended is not part of it', async () => {
    const a = await t.createAccount({ walletBalance: 0 });
    let late: Promise<number> | null = null;
    let ended!: () => void;
    const unitEnded = new Promise<void>((r) => (ended = r));
    await expect(
      uow.transaction(async (tx) => {
        await tx.exec(add(a.id, 1));
        // Started inside the unit, runs after it rolled back: on its own, and kept.
        late = unitEnded.then(() => uow.exec(add(a.id, 7)));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    ended();
    expect(await late).toBe(1);
    expect(await wallet(a.id)).toBe(7);
  });

  it('two units taking the same rows in opposite order both commit (a deadlock is run again; only committed attempts run their effects)', async () => {
    const a = await t.createAccount({ walletBalance: 0 });
    const b = await t.createAccount({ walletBalance: 0 });
    let attempts = 0;
    let effects = 0;
    // Where units overlap (pooled connections), each waits until both hold their first row, so the
    // database must pick a victim; the embedded database runs them one after the other.
    let arrived = 0;
    let bothIn!: () => void;
    const both = new Promise<void>((r) => (bothIn = r));
    const crossing = (first: string, second: string) =>
      uow.transaction(async (tx) => {
        attempts++;
        await tx.exec(add(first, 1));
        uow.afterCommit(() => effects++);
        if (uow.capabilities.concurrentWrites && ++arrived === 2) bothIn();
        if (uow.capabilities.concurrentWrites) await both;
        await tx.exec(add(second, 10));
      });
    await Promise.all([crossing(a.id, b.id), crossing(b.id, a.id)]);
    expect(await wallet(a.id)).toBe(11);
    expect(await wallet(b.id)).toBe(11);
    expect(attempts).toBe(uow.capabilities.concurrentWrites ? 3 : 2);
    expect(effects).toBe(2);
  });

  it('an after-commit effect runs once the outermost unit commits, never for a rolled-back attempt', async () => {
    const a = await t.createAccount({ walletBalance: 0 });
    const ran: string[] = [];
    // Outside a unit: at once.
    uow.afterCommit(() => ran.push('alone'));
    expect(ran).toEqual(['alone']);

    await uow.transaction(async (tx) => {
      await uow.transaction(async (inner) => {
        await inner.exec(add(a.id, 1));
        uow.afterCommit(() => ran.push('inner'));
      });
      // Registered in a nested unit: waits for the outermost commit.
      expect(ran).toEqual(['alone']);
      uow.afterCommit(() => {
        throw new Error('an effect that fails');
      });
      uow.afterCommit(() => ran.push('outer'));
      await tx.exec(add(a.id, 10));
    });
    // In order; the failing effect neither undid the unit nor stopped the next one.
    expect(ran).toEqual(['alone', 'inner', 'outer']);
    expect(await wallet(a.id)).toBe(11);

    await expect(
      uow.transaction(async (tx) => {
        await tx.exec(add(a.id, 100));
        uow.afterCommit(() => ran.push('rolled back'));
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(ran).toEqual(['alone', 'inner', 'outer']);
    expect(await wallet(a.id)).toBe(11);
  });

  it('a lock wait timeout is run again only when the caller allows it', async () => {
    const a = await t.createAccount({ walletBalance: 0 });
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    let letGo!: () => void;
    const released = new Promise<void>((r) => (letGo = r));
    const holder = uow.transaction(async (tx) => {
      await tx.exec(add(a.id, 1));
      holding();
      await released;
    });
    await held;
    if (uow.capabilities.concurrentWrites) {
      // Pooled connections: the row stays locked past DB_LOCK_WAIT_TIMEOUT_S (3 s).
      await expect(uow.transaction((tx) => tx.exec(add(a.id, 10)))).rejects.toMatchObject({
        driverError: { errno: 1205 },
      });
      let tries = 0;
      const patient = uow.transaction(
        async (tx) => {
          if (++tries === 2) letGo();
          await tx.exec(add(a.id, 100));
        },
        { retry: { lockTimeouts: 1 } },
      );
      await Promise.all([holder, patient]);
      expect(tries).toBe(2);
      expect(await wallet(a.id)).toBe(101);
    } else {
      // One connection: the second unit waits for the first instead of timing out.
      const waiting = uow.transaction((tx) => tx.exec(add(a.id, 100)));
      letGo();
      await Promise.all([holder, waiting]);
      expect(await wallet(a.id)).toBe(101);
    }
  });
  it('a statement run on its own that the database picks as a deadlock victim is run again (no 500 for a lost race)', async () => {
    const accounts = await Promise.all(Array.from({ length: 5 }, () => t.createAccount({ walletBalance: 0 })));
    const [lo, hi, ...others] = accounts.map((a) => a.id).sort();
    let attempts = 0;
    // A unit holds `hi` (and more rows, so it weighs more than the lone statement and the database
    // picks the statement as the victim); the statement takes `lo`, then waits for `hi`; the unit then
    // asks for `lo`. On the embedded database they simply run one after the other.
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    let go!: () => void;
    const proceed = new Promise<void>((r) => (go = r));
    const unit = uow.transaction(async (tx) => {
      attempts++;
      for (const id of [hi, ...others]) await tx.exec(add(id, 10));
      holding();
      await proceed;
      await tx.exec(add(lo, 10));
    });
    await held;
    const alone = uow.exec(sql('UPDATE accounts SET wallet_balance = wallet_balance + 1 WHERE id IN (?, ?)', lo, hi));
    if (uow.capabilities.concurrentWrites) {
      // Until the statement holds `lo` (so it waits for `hi`): a probe that will not wait for `lo` finds it
      // locked. (INNODB_TRX's 'LOCK WAIT' is not a reliable sign: MariaDB sometimes did not list the
      // waiting statement's transaction at all, while PROCESSLIST showed it running.)
      await waitFor(
        () =>
          ds.query('SELECT id FROM accounts WHERE id = ? FOR UPDATE NOWAIT', [lo]).then(
            () => false,
            (err: { driverError?: { errno?: number } }) => {
              // MariaDB answers a NOWAIT that meets a lock with 1205, MySQL with 3572.
              if ([1205, 3572].includes(err.driverError?.errno ?? 0)) return true;
              throw err;
            },
          ),
        { what: 'the statement holding lo and waiting for the unit' },
      );
    }
    go();
    await unit;
    expect(await alone).toBe(2);
    expect(attempts).toBe(1);
    expect([await wallet(lo), await wallet(hi)]).toEqual([11, 11]);
  });

  it("foregroundMs: the one writer's time held by units outside background(), none of background()'s; null where writes run side by side", async () => {
    const hold = (ms: number) =>
      uow.transaction(async (tx) => {
        await tx.exec(sql('UPDATE accounts SET free_messages = free_messages WHERE id = ?', 'none'));
        await new Promise((r) => setTimeout(r, ms));
      });
    const f0 = uow.foregroundMs();
    if (uow.capabilities.concurrentWrites) {
      expect(f0).toBeNull();
      await hold(1);
      expect(uow.foregroundMs()).toBeNull();
      return;
    }
    await hold(60);
    const f1 = uow.foregroundMs() as number;
    expect(f1 - (f0 as number)).toBeGreaterThanOrEqual(55);
    await uow.background(() => hold(60));
    await uow.background(() => uow.read(query((r) => Number(r.n), sql('SELECT 1 AS n'))));
    // (What else the app ran meanwhile, such as a scheduler's read, takes well under a millisecond.)
    expect((uow.foregroundMs() as number) - f1).toBeLessThan(20);
  });
});
