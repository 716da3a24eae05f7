import Database from 'better-sqlite3';
import { insertOrAdd } from './sql';

describe(insertOrAdd.name, () => {
  it('SQLite (`on-conflict`): inserts the first row, then adds to it by its key; other keys stay apart', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE c (a TEXT, d TEXT, sent INTEGER, verified INTEGER, PRIMARY KEY (a, d))');
    const run = (a: string, d: string, sent: number, verified: number) => {
      const stmt = insertOrAdd('on-conflict', 'c', [{ keys: { a, d }, adds: { sent, verified } }]);
      db.prepare(stmt.sql).run(...stmt.params);
    };
    run('x', '2026-01-01', 1, 0);
    run('x', '2026-01-01', 1, 0);
    run('x', '2026-01-01', 0, 1);
    run('x', '2026-01-02', 0, 1);
    run('y', '2026-01-01', 3, 2);
    expect(db.prepare('SELECT a, d, sent, verified FROM c ORDER BY a, d').all()).toEqual([
      { a: 'x', d: '2026-01-01', sent: 2, verified: 1 },
      { a: 'x', d: '2026-01-02', sent: 0, verified: 1 },
      { a: 'y', d: '2026-01-01', sent: 3, verified: 2 },
    ]);
    db.close();
  });

  it('SQLite: one statement of many rows adds each to its own row, inserting the new keys', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE c (a TEXT, d TEXT, sent INTEGER, verified INTEGER, PRIMARY KEY (a, d))');
    db.exec(`INSERT INTO c VALUES ('x', '2026-01-01', 5, 1)`);
    const stmt = insertOrAdd('on-conflict', 'c', [
      { keys: { a: 'x', d: '2026-01-01' }, adds: { sent: 2, verified: 3 } },
      { keys: { a: 'x', d: '2026-01-02' }, adds: { sent: 1, verified: 0 } },
      { keys: { a: 'y', d: '2026-01-01' }, adds: { sent: 0, verified: 4 } },
    ]);
    expect(db.prepare(stmt.sql).run(...stmt.params).changes).toBe(3);
    expect(db.prepare('SELECT a, d, sent, verified FROM c ORDER BY a, d').all()).toEqual([
      { a: 'x', d: '2026-01-01', sent: 7, verified: 4 },
      { a: 'x', d: '2026-01-02', sent: 1, verified: 0 },
      { a: 'y', d: '2026-01-01', sent: 0, verified: 4 },
    ]);
    db.close();
  });

  it('`on-duplicate-key`: the MySQL/MariaDB form binds each row once and adds VALUES() of the row', () => {
    expect(
      insertOrAdd('on-duplicate-key', 'c', [
        { keys: { a: 'x', d: '2026-01-01' }, adds: { sent: 1, verified: 0 } },
        { keys: { a: 'y', d: '2026-01-01' }, adds: { sent: 2, verified: 3 } },
      ]),
    ).toEqual({
      sql: 'INSERT INTO c (a, d, sent, verified) VALUES (?, ?, ?, ?), (?, ?, ?, ?) ON DUPLICATE KEY UPDATE sent = sent + VALUES(sent), verified = verified + VALUES(verified)',
      params: ['x', '2026-01-01', 1, 0, 'y', '2026-01-01', 2, 3],
    });
  });

  it('refuses an empty batch (no statement to write)', () => {
    expect(() => insertOrAdd('on-conflict', 'c', [])).toThrow('insertOrAdd needs a row');
  });
});
