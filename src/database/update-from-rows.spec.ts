import Database from 'better-sqlite3';
import { sql, updateFromRows } from './sql';

describe(updateFromRows.name, () => {
  it('SQLite (`from`): sets each row to its own values by its key, narrowed by `where`, leaves other rows alone', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (a TEXT, b TEXT, s TEXT, n INTEGER, owner TEXT, PRIMARY KEY (a, b))');
    const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?)');
    for (const [a, b, owner] of [
      ['x', '1', 'o1'],
      ['x', '2', 'o1'],
      ['y', '1', 'o2'],
      ['z', '1', 'o1'],
    ])
      insert.run(a, b, 'old', 0, owner);
    const stmt = updateFromRows(
      'from',
      't',
      ['a', 'b'],
      ['s', 'n'],
      [
        ['x', '1', 'new1', 1],
        ['x', '2', null, 2],
        ['y', '1', 'new3', 3],
      ],
      sql('t.owner = ?', 'o1'),
    );
    const changed = db.prepare(stmt.sql).run(...stmt.params).changes;
    expect(changed).toBe(2);
    expect(db.prepare('SELECT a, b, s, n FROM t ORDER BY a, b').all()).toEqual([
      { a: 'x', b: '1', s: 'new1', n: 1 },
      { a: 'x', b: '2', s: null, n: 2 },
      { a: 'y', b: '1', s: 'old', n: 0 },
      { a: 'z', b: '1', s: 'old', n: 0 },
    ]);
    db.close();
  });

  it('`also`: the same assignments for every row, after the listed values, with their parameters in statement order on both dialects', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (a TEXT PRIMARY KEY, s TEXT, n INTEGER, tag TEXT)');
    for (const a of ['x', 'y', 'z']) db.prepare('INSERT INTO t VALUES (?, ?, ?, ?)').run(a, 'old', 5, null);
    const stmt = updateFromRows(
      'from',
      't',
      ['a'],
      ['s'],
      [
        ['x', 'new1'],
        ['y', 'new2'],
      ],
      sql('t.n = ?', 5),
      sql('n = n + ?, tag = ?', 2, 'moved'),
    );
    expect(db.prepare(stmt.sql).run(...stmt.params).changes).toBe(2);
    expect(db.prepare('SELECT a, s, n, tag FROM t ORDER BY a').all()).toEqual([
      { a: 'x', s: 'new1', n: 7, tag: 'moved' },
      { a: 'y', s: 'new2', n: 7, tag: 'moved' },
      { a: 'z', s: 'old', n: 5, tag: null },
    ]);
    db.close();
    const joined = updateFromRows('join', 't', ['a'], ['s'], [['x', 'new1']], sql('t.n = ?', 5), sql('n = n + ?', 2));
    expect(joined.sql).toBe(
      'UPDATE t JOIN (SELECT ? AS a, ? AS s) v ON t.a = v.a SET t.s = v.s, n = n + ? WHERE t.n = ?',
    );
    expect(joined.params).toEqual(['x', 'new1', 2, 5]);
  });

  it('SQLite (`from`): more rows than a compound SELECT may have terms (500) in one statement', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, s TEXT, n INTEGER)');
    const insert = db.prepare('INSERT INTO t VALUES (?, ?, 0)');
    for (let i = 0; i < 2000; i++) insert.run(i, 'old');
    const stmt = updateFromRows(
      'from',
      't',
      ['a'],
      ['s'],
      Array.from({ length: 1500 }, (_, i) => [i, `new${i}`]),
      undefined,
      sql('n = n + 1'),
    );
    expect(db.prepare(stmt.sql).run(...stmt.params).changes).toBe(1500);
    expect(db.prepare("SELECT COUNT(*) AS c, SUM(n) AS n FROM t WHERE s LIKE 'new%'").get()).toEqual({
      c: 1500,
      n: 1500,
    });
    expect(db.prepare('SELECT s, n FROM t WHERE a = 1499').get()).toEqual({ s: 'new1499', n: 1 });
    expect(db.prepare('SELECT s, n FROM t WHERE a = 1500').get()).toEqual({ s: 'old', n: 0 });
    db.close();
  });

  it('MySQL (`join`): joins a derived table of the rows on the key and sets from it', () => {
    const stmt = updateFromRows(
      'join',
      't',
      ['id'],
      ['s'],
      [
        ['a', 'x'],
        ['b', 'y'],
      ],
      sql('t.owner IN (?)', 'o'),
    );
    expect(stmt.sql).toBe(
      'UPDATE t JOIN (SELECT ? AS id, ? AS s UNION ALL SELECT ?, ?) v ON t.id = v.id SET t.s = v.s WHERE t.owner IN (?)',
    );
    expect(stmt.params).toEqual(['a', 'x', 'b', 'y', 'o']);
  });
});
