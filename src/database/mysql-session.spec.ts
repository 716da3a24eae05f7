import { sessionStatement } from './mysql-session';

describe('sessionStatement', () => {
  const limits = { lockWaitTimeoutS: 5, idleTransactionTimeoutS: 3 };

  it('MariaDB: ends idle transactions with idle_transaction_timeout', () => {
    expect(sessionStatement('5.5.5-10.11.19-MariaDB-0+deb12u1', limits)).toEqual({
      sql: 'SET SESSION innodb_lock_wait_timeout = ?, idle_transaction_timeout = ?',
      params: [5, 3],
    });
  });

  it('MySQL (no idle-transaction limit): wait_timeout stands in', () => {
    expect(sessionStatement('8.0.36', limits)).toEqual({
      sql: 'SET SESSION innodb_lock_wait_timeout = ?, wait_timeout = ?',
      params: [5, 3],
    });
  });
});
