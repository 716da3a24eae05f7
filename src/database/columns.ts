import { Column, ColumnOptions, ValueTransformer } from 'typeorm';

/** BIGINT comes back as string from mysql2 when large; we keep values below 2^53 and want numbers. */
export const bigintToNumber: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | number | null) => (v === null || v === undefined ? v : Number(v)),
};

/**
 * Times are stored as epoch milliseconds (BIGINT): the same SQL compares them on SQLite and MySQL,
 * with no driver time-zone conversion. API responses render them as ISO 8601.
 */
export function EpochMsColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'bigint', transformer: bigintToNumber, ...options });
}

/** Money in integer minor units (halalas, cents), never floats. */
export function MoneyColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'bigint', transformer: bigintToNumber, default: 0, ...options });
}

export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
