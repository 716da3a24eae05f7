import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import type { SuppressionImport } from './dto/suppressions.dto';
import { CsvLineProblem, ImportEntry, readSuppressionCsv } from './suppression-csv-reader';
import { SuppressionsService } from './suppressions.service';
import type { AccountId } from '../common/account-id';

/** Problems listed in a 400 (`errors`); the first few are also in its message. */
const MAX_PROBLEMS = 100;
const PROBLEMS_IN_MESSAGE = 3;

/**
 * POST /api/v2/suppressions/import: a CSV streamed in (never buffered as text), every row checked
 * first; then all entries are written in one unit of work, or none when any row is wrong.
 */
@Injectable()
export class SuppressionsImportService {
  private readonly region: string;
  private readonly maxRows: number;

  constructor(
    private readonly suppressions: SuppressionsService,
    config: AppConfig,
  ) {
    this.region = config.messaging.defaultRegion;
    this.maxRows = config.consent.importMaxRows;
  }

  async import(accountId: AccountId, keyId: string, req: Request): Promise<SuppressionImport> {
    const unsupported = mediaTypeProblem(req.headers['content-type']);
    if (unsupported) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', unsupported);
    const read = await readSuppressionCsv(req, {
      region: this.region,
      maxRows: this.maxRows,
      maxProblems: MAX_PROBLEMS,
    });
    if (read.kind === 'aborted')
      throw new ApiError('VALIDATION_ERROR', 'The request body ended before it was complete');
    if (read.kind === 'tooManyRows') {
      // The rest of the body stays unread: close the connection after the answer rather than read it.
      req.res?.setHeader('Connection', 'close');
      throw new ApiError('PAYLOAD_TOO_LARGE', `An import holds at most ${this.maxRows} rows; nothing was imported`);
    }
    if (read.kind === 'invalid') {
      if (read.stoppedReading) req.res?.setHeader('Connection', 'close');
      throw invalidRows(read.problems);
    }
    if (read.rows === 0) throw new ApiError('VALIDATION_ERROR', 'The CSV has a header row but no entries');
    const entries = distinct(read.entries);
    const written = await this.suppressions.optOutAll(
      accountId,
      entries.map((e) => ({ ...e, reason: 'import' as const, source: keyId })),
    );
    return { rows: read.rows, total: entries.length, imported: written.added, alreadyPresent: written.existing };
  }
}

/** Null for `text/csv` in UTF-8 (the charset may be left out), else why not. */
function mediaTypeProblem(header: string | undefined): string | null {
  const [type, ...params] = (header ?? '').split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'text/csv') return 'The body must be a CSV file (Content-Type: text/csv)';
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return 'The CSV must be UTF-8';
  return null;
}

function invalidRows(problems: CsvLineProblem[]): ApiError {
  const shown = problems
    .slice(0, PROBLEMS_IN_MESSAGE)
    .map((p) => `line ${p.line}: ${p.message}`)
    .join('; ');
  const more = problems.length > PROBLEMS_IN_MESSAGE ? ` (and more: see errors)` : '';
  return new ApiError('VALIDATION_ERROR', `Nothing was imported. ${shown}${more}`, { errors: problems });
}

/** Each (recipient, channel) once: the last row of a pair wins, as within one POST. */
function distinct(entries: readonly ImportEntry[]): ImportEntry[] {
  const byKey = new Map<string, ImportEntry>();
  for (const e of entries) {
    const key = `${e.recipient}|${e.channel}`;
    byKey.delete(key);
    byKey.set(key, e);
  }
  return [...byKey.values()];
}
