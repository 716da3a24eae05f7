import { QueryRunner, Table, TableColumnOptions, TableIndex, TableIndexOptions, TableOptions } from 'typeorm';
import { MYSQL_COLLATION } from './collation';

export function isMysql(qr: QueryRunner): boolean {
  const t = qr.connection.options.type;
  return t === 'mysql' || t === 'mariadb';
}

/**
 * Creates a table with TypeORM's dialect-neutral Table API; on MySQL/MariaDB also pins the table
 * collation to the connection's (Debian's MariaDB defaults to utf8mb4_general_ci, and a mismatch makes
 * claim queries sort every row: STACK-NOTES).
 */
export async function createTable(qr: QueryRunner, options: TableOptions): Promise<void> {
  if (!isMysql(qr)) {
    await qr.createTable(new Table(options), false);
    return;
  }
  // Collation on every text column at creation (foreign keys need equal collations on both sides).
  const columns = (options.columns ?? []).map((c) =>
    /char|text/i.test(String(c.type)) ? { ...c, charset: 'utf8mb4', collation: MYSQL_COLLATION } : c,
  );
  await qr.createTable(new Table({ ...options, columns }), false);
  await qr.query(`ALTER TABLE \`${options.name}\` DEFAULT CHARACTER SET utf8mb4 COLLATE ${MYSQL_COLLATION}`);
}

export async function createIndex(qr: QueryRunner, table: string, options: TableIndexOptions): Promise<void> {
  await qr.createIndex(table, new TableIndex(options));
}

// Column shorthands so migrations read like a schema.
export const col = {
  id: (name = 'id'): TableColumnOptions => ({ name, type: 'varchar', length: '40', isPrimary: true }),
  ref: (name: string, nullable = false): TableColumnOptions => ({
    name,
    type: 'varchar',
    length: '40',
    isNullable: nullable,
  }),
  str: (name: string, length: number, nullable = false, def?: string): TableColumnOptions => ({
    name,
    type: 'varchar',
    length: String(length),
    isNullable: nullable,
    ...(def !== undefined ? { default: `'${def}'` } : {}),
  }),
  text: (name: string, nullable = true): TableColumnOptions => ({ name, type: 'text', isNullable: nullable }),
  int: (name: string, def: number | null = 0): TableColumnOptions => ({
    name,
    type: 'int',
    isNullable: def === null,
    ...(def !== null ? { default: def } : {}),
  }),
  bigint: (name: string, def: number | null = 0): TableColumnOptions => ({
    name,
    type: 'bigint',
    isNullable: def === null,
    ...(def !== null ? { default: def } : {}),
  }),
  /** Epoch milliseconds. */
  ms: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable }),
  bool: (name: string, def: boolean): TableColumnOptions => ({ name, type: 'boolean', default: def ? 1 : 0 }),
};
