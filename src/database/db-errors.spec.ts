import { isUniqueViolation, isUnknownDatabase } from './db-errors';

describe('isUniqueViolation', () => {
  it.each([
    [{ code: 'SQLITE_CONSTRAINT_UNIQUE' }, true],
    [{ driverError: { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' } }, true],
    [{ driverError: { code: 'ER_DUP_ENTRY', errno: 1062 } }, true],
    [{ errno: 1062 }, true],
    [{ code: 'SQLITE_CONSTRAINT_NOTNULL' }, false],
    [{ driverError: { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' } }, false],
    [{ driverError: { code: 'ER_NO_REFERENCED_ROW_2', errno: 1452 } }, false],
    [new Error('boom'), false],
    [null, false],
  ])('%j -> %s', (err, expected) => {
    expect(isUniqueViolation(err)).toBe(expected);
  });
});

describe('isUnknownDatabase', () => {
  it.each([
    [{ code: 'ER_BAD_DB_ERROR', errno: 1049 }, true],
    [{ driverError: { errno: 1049 } }, true],
    [{ code: 'ECONNREFUSED' }, false],
    [{ errno: 1045 }, false],
    [null, false],
  ])('%j -> %s', (err, expected) => {
    expect(isUnknownDatabase(err)).toBe(expected);
  });
});
