import type { Options } from 'csv-stringify';

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection": = + - @,
 * tab, carriage return; and the full-width = + - @ some spreadsheets normalise, as csv-stringify's
 * own `escape_formulas` lists them).
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/**
 * A phone number as we store and send it: `+` and digits only. As a formula it is that number and
 * nothing else (no function, reference or DDE call), so it is left as it is: every program reading
 * the export gets the recipient exactly, rather than `'+9665…` in nearly every row.
 */
const PLAIN_PHONE = /^\+[0-9]+$/;

/** A cell a spreadsheet would run as a formula gets a leading `'` (shown as text, never evaluated). */
export function neutraliseFormula(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_PHONE.test(value) ? `'${value}` : value;
}

/**
 * RFC 4180 as csv-stringify writes it (fields with a comma, quote, CR or LF quoted, quotes doubled,
 * CRLF between records), every string cell neutralised first; null is an empty cell.
 */
export const CSV_OPTIONS: Options = {
  record_delimiter: 'windows',
  cast: { string: neutraliseFormula },
};
