import type { EnvReader } from './env-reader';

/** The account's suppression list (issue 28). */
export interface ConsentConfig {
  /**
   * SUPPRESSION_IMPORT_MAX_ROWS: data rows one CSV import may hold (413 past it). An import is
   * checked whole before anything is written, so its entries are held in memory until then.
   */
  importMaxRows: number;
}

export function consentSection(r: EnvReader): ConsentConfig {
  return { importMaxRows: r.int('SUPPRESSION_IMPORT_MAX_ROWS', 100_000, 1, 1_000_000) };
}
