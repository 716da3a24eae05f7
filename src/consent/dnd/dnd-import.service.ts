import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import { AppConfig } from '../../config/app-config';
import { DndRepository, DndState } from '../dnd.repository';
import { parsePhone } from '../../messaging/validation/recipient-rules';
import { CsvFirstColumn } from './csv-lines';

/** Numbers written per INSERT (one statement, two parameters each). */
export const DND_INSERT_BATCH = 5_000;
/**
 * Numbers gathered (and sorted) before they are written. Written in the order they arrive, each
 * INSERT of a scrambled list lands all over the index and every commit rewrites most of its pages:
 * 1,000,000 numbers took 44 s on the embedded database. Sorted runs of 100,000 touch a fraction of
 * them per INSERT (the same million: ~4 s of inserts). Memory stays bounded (~10 MB).
 */
export const DND_SORT_RUN = 100_000;
/** Rows of a replaced list deleted per statement. */
export const DND_DELETE_BATCH = 5_000;
/** How many invalid line numbers an answer lists. */
const INVALID_LINES_SHOWN = 10;

export interface DndImportResult {
  /** Distinct numbers on the list now in force. */
  numbers: number;
  /** Lines that were not a phone number (the header excluded). */
  invalid: number;
  /** The first of them (1-based line numbers). */
  invalidLines: number[];
  generation: number;
  importedAt: string;
  durationMs: number;
}

export interface DndStateView {
  numbers: number;
  generation: number;
  importedAt: string | null;
}

/** Where an import stands while the body streams in. */
interface Progress {
  lines: number;
  valid: number;
  invalid: number;
  invalidLines: number[];
  /** Numbers read and not yet written (a sorted run in the making; duplicates collapse here). */
  pending: Set<string>;
}

/**
 * The operator's import of the platform's do-not-disturb list: the body streams in (never held
 * whole), each number is normalised like a message's `to` and written into a fresh generation in
 * batches; once the body is complete one statement makes it the list in force, so a lookup sees the
 * old list or the new one, never a mix. The replaced list is deleted afterwards in bounded batches.
 * An import that fails (bad body, the client gone, a later import already in force) deletes its own
 * rows and leaves the list in force as it was.
 */
@Injectable()
export class DndImportService {
  private readonly logger = new Logger(DndImportService.name);
  private readonly region: string;

  constructor(
    private readonly repo: DndRepository,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.region = config.messaging.defaultRegion;
  }

  async state(): Promise<DndStateView> {
    return view(await this.repo.state());
  }

  /**
   * Imports `body` (CSV, one number a line, an optional header) as the new list. `complete` says
   * whether the body arrived whole once it ended (a body cut short is never applied).
   */
  async import(body: AsyncIterable<Buffer | string>, complete: () => boolean): Promise<DndImportResult> {
    const started = this.clock.now();
    const generation = await this.repo.claimGeneration();
    let activated = false;
    try {
      const progress = await this.load(generation, body);
      if (!complete()) throw bodyCutShort();
      if (progress.valid === 0) throw noNumbers(progress);
      const numbers = await this.repo.count(generation);
      const at = this.clock.now();
      const done = await this.repo.activate(generation, numbers, at);
      if (!done.activated)
        throw new ApiError(
          'CONFLICT',
          'An import started later replaced the list while this one ran; it was not applied',
        );
      activated = true;
      await this.dropStale(generation);
      return {
        numbers,
        invalid: progress.invalid,
        invalidLines: progress.invalidLines,
        generation,
        importedAt: new Date(at).toISOString(),
        durationMs: this.clock.now() - started,
      };
    } finally {
      if (!activated) await this.discard(generation);
    }
  }

  /** Streams the body into `generation`, in sorted runs of up to DND_SORT_RUN numbers. */
  private async load(generation: number, body: AsyncIterable<Buffer | string>): Promise<Progress> {
    const p: Progress = { lines: 0, valid: 0, invalid: 0, invalidLines: [], pending: new Set() };
    const lines = new CsvFirstColumn();
    // Not `for await`: a failed read is the body's fault (400), a failed write is not (it goes on as
    // it is); and a failed write leaves the rest of the body to the server, which drains it after
    // the answer (ending the iterator would destroy the socket before the error envelope is sent).
    const chunks = body[Symbol.asyncIterator]();
    for (;;) {
      const next = await chunks.next().catch(() => {
        // The request stream failed: the client went away or the connection broke mid-body.
        throw bodyCutShort();
      });
      if (next.done) break;
      for (const l of lines.push(next.value)) this.take(p, l.line, l.value);
      if (p.pending.size >= DND_SORT_RUN) await this.flush(generation, p);
    }
    for (const l of lines.end()) this.take(p, l.line, l.value);
    await this.flush(generation, p);
    return p;
  }

  private take(p: Progress, line: number, value: string | null): void {
    p.lines++;
    // A first line without a digit is a header ("number", "msisdn"), not an invalid number.
    if (p.lines === 1 && value !== null && !/\d/.test(value)) return;
    const e164 = value === null ? null : (parsePhone(value, this.region)?.e164 ?? null);
    if (e164 === null) {
      p.invalid++;
      if (p.invalidLines.length < INVALID_LINES_SHOWN) p.invalidLines.push(line);
      return;
    }
    p.valid++;
    p.pending.add(e164);
  }

  /** Writes the pending numbers in order, DND_INSERT_BATCH an INSERT. */
  private async flush(generation: number, p: Progress): Promise<void> {
    const run = [...p.pending].sort();
    p.pending.clear();
    for (let i = 0; i < run.length; i += DND_INSERT_BATCH)
      await this.repo.insert(generation, run.slice(i, i + DND_INSERT_BATCH));
  }

  /** Deletes every generation below `active` (the replaced list, imports that lost or died), batch by batch. */
  private async dropStale(active: number): Promise<void> {
    try {
      for (let g = await this.repo.staleGeneration(active); g !== null; g = await this.repo.staleGeneration(active))
        while ((await this.repo.deleteSome(g, DND_DELETE_BATCH)) > 0) {
          // next batch
        }
    } catch (err) {
      // The new list is in force; what is left of the old one goes with the next import.
      this.logger.error(`deleting the replaced do-not-disturb list failed: ${String(err)}`);
    }
  }

  /** An import that was not applied leaves nothing behind. */
  private async discard(generation: number): Promise<void> {
    try {
      while ((await this.repo.deleteSome(generation, DND_DELETE_BATCH)) > 0) {
        // next batch
      }
    } catch (err) {
      this.logger.error(`deleting the rows of a failed do-not-disturb import failed: ${String(err)}`);
    }
  }
}

function bodyCutShort(): ApiError {
  return new ApiError('INVALID_REQUEST_BODY', 'The request body ended before it was complete');
}

function noNumbers(p: Progress): ApiError {
  if (p.invalid === 0) return new ApiError('VALIDATION_ERROR', 'The body holds no phone numbers (one number a line)');
  const more = p.invalid > p.invalidLines.length ? ', ...' : '';
  return new ApiError(
    'VALIDATION_ERROR',
    `No line of the body is a phone number (${p.invalid} invalid: lines ${p.invalidLines.join(', ')}${more})`,
  );
}

function view(s: DndState): DndStateView {
  return {
    numbers: s.numbers,
    generation: s.activeGeneration,
    importedAt: s.importedAt === null ? null : new Date(s.importedAt).toISOString(),
  };
}
