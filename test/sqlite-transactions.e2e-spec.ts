import { DataSource } from 'typeorm';
import { createTestApp, TestApp } from './support/app';

/**
 * Concurrent transactions must not interleave (SQLite shares one connection): a transaction that
 * rolls back must not take another request's writes with it, on either dialect.
 */
describe('Concurrent transactions (e2e)', () => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await createTestApp();
    ds = t.app.get(DataSource);
  });
  afterAll(async () => t.close());

  it('a rollback undoes only its own work while other transactions and plain writes run', async () => {
    const a = await t.createAccount({ walletBalance: 0 });
    const b = await t.createAccount({ walletBalance: 0 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));

    const failing = ds.transaction(async (em) => {
      await em.query('UPDATE accounts SET wallet_balance = wallet_balance + 1 WHERE id = ?', [a.id]);
      await gate;
      throw new Error('roll me back');
    });
    const committed = Promise.all(
      Array.from({ length: 20 }, () =>
        ds.transaction((em) => em.query('UPDATE accounts SET wallet_balance = wallet_balance + 1 WHERE id = ?', [b.id])),
      ),
    );
    const plain = ds.query('UPDATE accounts SET free_messages = free_messages + 5 WHERE id = ?', [b.id]);
    setImmediate(release);

    await expect(failing).rejects.toThrow('roll me back');
    await committed;
    await plain;
    const rows: { id: string; wallet_balance: number | string; free_messages: number | string }[] = await ds.query(
      'SELECT id, wallet_balance, free_messages FROM accounts WHERE id IN (?, ?)',
      [a.id, b.id],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(Number(byId.get(a.id)!.wallet_balance)).toBe(0);
    expect(Number(byId.get(b.id)!.wallet_balance)).toBe(20);
    expect(Number(byId.get(b.id)!.free_messages)).toBe(5);
  });
});
