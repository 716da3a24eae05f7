import { ApiBody, ApiHeader, ApiParam } from '@nestjs/swagger';
import type { ApiFileSuccessOptions } from '../common/openapi';
import { EVENTS_POLL_MS } from './bulk-job-stream';
import { MAX_KEY } from './bulk-request-rules';
import { EXAMPLE_JOB } from './dto/bulk-job.response';
import { CreateBulkJobBody, EXAMPLE_BULK_BODY } from './dto/create-bulk-job.body';

// The long texts and example bodies of BulkController's OpenAPI document, so the controller reads as
// its routes. The decorators stay on the controller, in their order.

export const JobIdParam = () =>
  ApiParam({
    name: 'jobId',
    schema: { type: 'string' },
    description: 'The `id` of the creation response.',
    example: EXAMPLE_JOB.id,
  });

export const IdempotencyKeyHeader = () =>
  ApiHeader({
    name: 'Idempotency-Key',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY },
    description: `1 to ${MAX_KEY} characters; wins over a body idempotencyKey (which is used only when the header is absent).`,
  });

/** The body of `createBulkJob`, which `validateBulkJob` takes too. */
export const ApiBulkJobBody = () =>
  ApiBody({
    type: CreateBulkJobBody,
    examples: { newsletter: { summary: 'Two messages, five per second', value: EXAMPLE_BULK_BODY } },
  });

const jobBody = (over: Record<string, unknown>) => ({ success: true, job: { ...EXAMPLE_JOB, ...over } });

export const ROWS_CSV_HEADERS: ApiFileSuccessOptions['headers'] = {
  'Content-Disposition': {
    description: '`attachment; filename="bulk-<jobId>-rows.csv"`',
    schema: { type: 'string' },
  },
};

/** The longer `description`s of the bulk operations, by route. */
export const DESCRIPTIONS = {
  create:
    'Stores the messages and queues a job that validates every row, then sends at `messagesPerSecond`. The body is streamed ' +
    '(no size limit). The same Idempotency-Key with the same `name`, `messagesPerSecond` and `messages` (within the replay ' +
    'window) returns the existing job; with a different body 409 IDEMPOTENCY_CONFLICT. An invalid row rejects the whole job ' +
    '(status `rejected`, see errorCode) with nothing sent. Messages are paid as they are sent; the job pauses ' +
    '(`insufficient_balance`) when the account cannot pay.',
  validate:
    'Takes the body of `createBulkJob` (streamed the same way, same limits and request errors; no Idempotency-Key) and ' +
    'runs every row through the same validation a job gets, then prices the valid rows from the balance as it is now. ' +
    'Nothing is stored, sent or paid. A malformed element is 400 INVALID_MESSAGE, as on creation; a row that fails ' +
    'validation is counted in `invalid` (the first 100 listed in `errors`): a real job with one would be rejected.',
  events:
    'A `text/event-stream`: `event: job` with the job object (as `getBulkJob` answers it, delivery counts included) at once, ' +
    `then again whenever it changed (checked every ${EVENTS_POLL_MS} ms, so at most twice a second); a comment line \`: ping\` ` +
    'every 15 s while nothing changes; once the job is `completed`, `rejected` or `cancelled` with nothing pending (a job ' +
    "cancelled mid-window first finishes that window), `event: end` (data: the job's " +
    '`id` and `status`) and the server closes the stream. Any replica serves any job. A stream also ends when the server ' +
    'shuts down: reconnect, and the first event is the job as it is then. Errors are JSON envelopes, before any event; ' +
    '429 RATE_LIMITED when the account already holds BULK_EVENTS_MAX_PER_ACCOUNT (20) streams on the replica. ' +
    'Browsers: EventSource cannot send the X-API-Key header; read the body of a `fetch()` instead.',
  rowsCsv:
    'RFC 4180, UTF-8 (no byte order mark), CRLF line ends, one header row, then every row in row order, streamed. A cell ' +
    "starting with = + - @, tab or CR gets a leading `'` so a spreadsheet never runs it as a formula; a phone number " +
    '(`+` and digits only) is left as it is. An error after the first byte ends the connection early (no error body).',
};

/** Complete response bodies as the bulk routes send them, by route. */
export const EXAMPLES = {
  created: {
    success: true,
    ...EXAMPLE_JOB,
    name: 'November newsletter',
    status: 'validating',
    total: 2,
    validatedCount: 0,
    counts: { pending: 2, sent: 0, failed: 0, cancelled: 0 },
  },
  jobs: { success: true, data: { jobs: [EXAMPLE_JOB], nextCursor: null, hasMore: false } },
  job: jobBody({}),
  events:
    `event: job\ndata: ${JSON.stringify({ ...EXAMPLE_JOB, status: 'running' })}\n\n` +
    ': ping\n\n' +
    `event: job\ndata: ${JSON.stringify({ ...EXAMPLE_JOB, status: 'completed', counts: { pending: 0, sent: 3, failed: 0, cancelled: 0 } })}\n\n` +
    `event: end\ndata: ${JSON.stringify({ id: EXAMPLE_JOB.id, status: 'completed' })}\n\n`,
  rows: {
    success: true,
    data: {
      jobId: EXAMPLE_JOB.id,
      rows: [
        {
          index: 0,
          to: '+14155550101',
          channel: 'local_sms',
          status: 'sent',
          messageId: 'msg_01jd8x2m0a1b2c3d4e5f6g7h',
          errorCode: null,
          errorMessage: null,
          sentAt: '2024-11-19T10:15:02.000Z',
          livemode: true,
        },
        {
          index: 1,
          to: 'ana@example.com',
          channel: 'email',
          status: 'pending',
          messageId: null,
          errorCode: null,
          errorMessage: null,
          sentAt: null,
          livemode: true,
        },
      ],
      nextCursor: null,
      hasMore: false,
    },
  },
  rowsCsv:
    'rowIndex,to,channel,status,messageId,errorCode,errorMessage,sentAt\r\n' +
    '0,+14155550101,local_sms,sent,msg_01jd8x2m0a1b2c3d4e5f6g7h,,,2024-11-19T10:15:02.000Z\r\n' +
    '1,ana@example.com,email,pending,,,,\r\n',
  retried: {
    success: true,
    retried: 1,
    job: { ...EXAMPLE_JOB, status: 'queued', counts: { pending: 1, sent: 2, failed: 0, cancelled: 0 } },
  },
  paused: jobBody({ status: 'paused', pauseReason: 'user' }),
  resumed: jobBody({ status: 'queued' }),
  cancelled: jobBody({ status: 'cancelled', counts: { pending: 0, sent: 2, failed: 0, cancelled: 1 } }),
};
