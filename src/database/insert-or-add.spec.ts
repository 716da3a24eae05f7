import Database from 'better-sqlite3';
import { insertOrAdd } from './sql';

describe(insertOrAdd.name, () => {
  it('SQLite (`on-conflict`): inserts the first row, then adds to it by its key; other keys stay apart', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE c (a TEXT, d TEXT, sent INTEGER, verified INTEGER, PRIMARY KEY (a, d))');
    const run = (a: string, d: string, sent: number, verified: number) => {
      const stmt = insertOrAdd('on-conflict', 'c', { a, d }, { sent, verified });
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

  it('`on-duplicate-key`: the MySQL/MariaDB form binds keys, values, then the increments', () => {
    expect(insertOrAdd('on-duplicate-key', 'c', { a: 'x', d: '2026-01-01' }, { sent: 1, verified: 0 })).toEqual({
      sql: 'INSERT INTO c (a, d, sent, verified) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE sent = sent + ?, verified = verified + ?',
      params: ['x', '2026-01-01', 1, 0, 1, 0],
    });
  });
});
