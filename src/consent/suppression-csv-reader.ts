import type { Readable } from 'node:stream';
import { CsvError, parse, type InfoRecord, type Parser } from 'csv-parse';
import { SUPPRESSION_CHANNELS } from './dto/suppressions.dto';
import { normaliseRecipient } from './recipient-key';
import { SUPPRESSION_SCOPES } from './suppression-types';
import type { SuppressionChannel, SuppressionScope } from './suppression-types';

/** One checked row of an import: the recipient normalised like `to`. */
export interface ImportEntry {
  recipient: string;
  channel: SuppressionChannel;
  scope: SuppressionScope;
}

/** What is wrong with one line (the header is line 1). */
export interface CsvLineProblem {
  line: number;
  message: string;
}

export type CsvReadOutcome =
  | { kind: 'ok'; rows: number; entries: ImportEntry[] }
  /** Rows (or the header) that cannot be imported; `stoppedReading`: the rest of the body is unread. */
  | { kind: 'invalid'; rows: number; problems: CsvLineProblem[]; stoppedReading: boolean }
  /** More data rows than the limit: reading stopped at the first row past it. */
  | { kind: 'tooManyRows' }
  /** The client went away before the body ended. */
  | { kind: 'aborted' };

export interface CsvReadLimits {
  region: string;
  maxRows: number;
  /** Problems listed before reading goes on only to count rows. */
  maxProblems: number;
}

/** Columns an import reads; the other columns of an export are accepted and ignored (so an export re-imports). */
const READ_COLUMNS = ['recipient', 'channel', 'scope'] as const;
const IGNORED_COLUMNS = ['reason', 'source', 'createdat'];
/** A recipient is at most 320 characters: a longer record is no suppression row (and is never buffered whole). */
const MAX_RECORD_CHARS = 4096;

const CHANNEL_MESSAGE = `channel must be one of: ${SUPPRESSION_CHANNELS.join(', ')}`;

/**
 * Reads a suppression CSV (header row first, UTF-8, an optional BOM) as it streams in, checking every
 * row; checked entries are kept only while no row failed (the caller writes all or nothing). Reading
 * stops at once past `maxRows` or on a CSV syntax error.
 */
export async function readSuppressionCsv(body: Readable, limits: CsvReadLimits): Promise<CsvReadOutcome> {
  const parser = parse({
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: MAX_RECORD_CHARS,
    info: true,
  });
  let aborted = false;
  const onAbort = () => {
    if (body.readableEnded) return;
    aborted = true;
    parser.destroy();
  };
  body.on('error', onAbort);
  body.on('close', onAbort);
  body.pipe(parser);
  const problems: CsvLineProblem[] = [];
  const entries: ImportEntry[] = [];
  let columns: Map<string, number> | null = null;
  let headerWidth = 0;
  let rows = 0;
  const problem = (line: number, message: string) => {
    if (problems.length < limits.maxProblems) problems.push({ line, message });
  };
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: InfoRecord }>) {
      const { record, info } = item;
      if (!columns) {
        headerWidth = record.length;
        columns = readHeader(record, (m) => problem(info.lines, m));
        if (!columns) return { kind: 'invalid', rows: 0, problems, stoppedReading: stop(body, parser) };
        continue;
      }
      if (++rows > limits.maxRows) {
        stop(body, parser);
        return { kind: 'tooManyRows' };
      }
      if (record.length !== headerWidth) {
        problem(info.lines, `the row has ${record.length} fields, the header ${headerWidth}`);
        continue;
      }
      const entry = readRow(record, columns, limits.region, (m) => problem(info.lines, m));
      if (entry && problems.length === 0) entries.push(entry);
    }
  } catch (err) {
    if (aborted) return { kind: 'aborted' };
    if (!(err instanceof CsvError)) throw err;
    problem(typeof err.lines === 'number' ? err.lines : rows + 2, `the file is not valid CSV: ${err.message}`);
    return { kind: 'invalid', rows, problems, stoppedReading: stop(body, parser) };
  } finally {
    body.off('error', onAbort);
    body.off('close', onAbort);
  }
  if (aborted) return { kind: 'aborted' };
  if (!columns)
    return {
      kind: 'invalid',
      rows: 0,
      problems: [{ line: 1, message: 'a header row is required' }],
      stoppedReading: false,
    };
  if (problems.length) return { kind: 'invalid', rows, problems, stoppedReading: false };
  return { kind: 'ok', rows, entries };
}

/** Stops reading the body (the rest stays unread): the answer must close the connection. */
function stop(body: Readable, parser: Parser): true {
  body.unpipe(parser);
  body.pause();
  parser.destroy();
  return true;
}

function readHeader(record: string[], problem: (message: string) => void): Map<string, number> | null {
  const columns = new Map<string, number>();
  for (const [i, raw] of record.entries()) {
    const name = raw.toLowerCase();
    if (columns.has(name)) problem(`the column ${raw} appears twice`);
    else if ((READ_COLUMNS as readonly string[]).includes(name) || IGNORED_COLUMNS.includes(name)) columns.set(name, i);
    else problem(`unknown column ${JSON.stringify(raw)}: the columns are recipient, channel, scope`);
  }
  if (!columns.has('recipient')) problem('the header row must name a recipient column');
  return columns.size === record.length && columns.has('recipient') ? columns : null;
}

function readRow(
  record: string[],
  columns: Map<string, number>,
  region: string,
  problem: (message: string) => void,
): ImportEntry | null {
  const cell = (name: (typeof READ_COLUMNS)[number]) => {
    const i = columns.get(name);
    return i === undefined ? '' : record[i];
  };
  const raw = cell('recipient');
  const recipient = raw.length > 320 ? null : normaliseRecipient(raw, region);
  const channel = cell('channel').toLowerCase() || 'all';
  const scope = cell('scope').toLowerCase() || 'marketing';
  let ok = true;
  const fail = (message: string) => {
    ok = false;
    problem(message);
  };
  if (raw === '') fail('recipient is empty');
  else if (recipient === null) fail('recipient must be a phone number (E.164) or an email address');
  if (!(SUPPRESSION_CHANNELS as readonly string[]).includes(channel)) fail(CHANNEL_MESSAGE);
  if (!(SUPPRESSION_SCOPES as readonly string[]).includes(scope)) fail('scope must be marketing or all');
  return ok && recipient !== null
    ? { recipient, channel: channel as SuppressionChannel, scope: scope as SuppressionScope }
    : null;
}
