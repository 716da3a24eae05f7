import type { Logger } from '@nestjs/common';
import { Readable, Writable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import { CSV_OPTIONS } from './csv-cells';

/**
 * Streams `records` (the header first) into `out` as CSV (CSV_OPTIONS: RFC 4180, CRLF, formula cells
 * neutralised), only as fast as the client takes the bytes. A failure once bytes are out cannot become
 * an error answer: every stream is destroyed (the client sees the connection end early, never a
 * complete-looking file) and the failure is logged with `context`.
 */
export function streamCsv(
  records: AsyncIterable<readonly unknown[]>,
  out: Writable,
  log: Logger,
  context: Record<string, unknown>,
): void {
  pipeline(Readable.from(records), stringify(CSV_OPTIONS), out, (err) => {
    if (!err) return;
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      log.warn(context, 'CSV export stopped: the client went away');
    } else {
      log.error({ err, ...context }, 'CSV export failed after it started; connection aborted');
    }
  });
}
