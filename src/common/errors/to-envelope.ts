import { HttpException } from '@nestjs/common';
import { isTransientDbError } from '../../database/db-errors';
import { ApiError } from './api-error';
import { ERROR_CODES, ErrorCode } from './error-codes';

export interface ErrorEnvelope {
  success: false;
  code: ErrorCode;
  error: string;
  requestId: string;
  retryAfterSeconds?: number;
  [extra: string]: unknown;
}

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  /** True for errors we did not anticipate: logged with their stack, never shown. */
  unexpected: boolean;
}

const HTTP_STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  402: 'INSUFFICIENT_BALANCE',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/** body-parser / raw-body / multer errors carry `type` or `code` and an HTTP status. */
function fromTransportError(err: {
  type?: string;
  code?: string;
  status?: number;
  message?: string;
}): [ErrorCode, string] | null {
  if (err.type === 'entity.parse.failed') return ['INVALID_REQUEST_BODY', 'Request body is not valid JSON'];
  if (err.type === 'entity.too.large' || err.code === 'LIMIT_FILE_SIZE' || err.code === 'LIMIT_FIELD_VALUE') {
    return ['PAYLOAD_TOO_LARGE', 'Request body is too large'];
  }
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported request encoding'];
  }
  if (err.type === 'request.aborted') return ['INVALID_REQUEST_BODY', 'Request body was aborted'];
  if (typeof err.code === 'string' && err.code.startsWith('LIMIT_'))
    return ['VALIDATION_ERROR', err.message ?? 'Invalid upload'];
  return null;
}

function messageOf(ex: HttpException): string {
  const r = ex.getResponse();
  if (typeof r === 'string') return r;
  const m = (r as { message?: unknown }).message;
  if (Array.isArray(m)) return m.join('; ');
  if (typeof m === 'string') return m;
  return ex.message;
}

export function toEnvelope(err: unknown, requestId: string): MappedError {
  const make = (code: ErrorCode, error: string, extra: Record<string, unknown> = {}, status?: number): MappedError => ({
    status: status ?? ERROR_CODES[code].status,
    body: { success: false, code, error, requestId, ...extra },
    unexpected: false,
  });
  if (err instanceof ApiError) return make(err.code, err.message, err.extra, err.status);
  if (err && typeof err === 'object') {
    const transport = fromTransportError(err as never);
    if (transport) return make(transport[0], transport[1]);
  }
  // The database ended a transaction (lock held past DB_LOCK_WAIT_TIMEOUT_S, or a connection the
  // server closed): a retry is the answer, not a 500.
  if (isTransientDbError(err)) {
    return make('SERVICE_UNAVAILABLE', 'The database could not complete the request in time; retry shortly', {
      retryAfterSeconds: 1,
    });
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = HTTP_STATUS_CODES[status];
    if (status === 404) return make('NOT_FOUND', 'Route not found');
    if (code) return make(code, messageOf(err), {}, status);
  }
  return {
    status: 500,
    body: { success: false, code: 'INTERNAL_ERROR', error: 'Internal server error', requestId },
    unexpected: true,
  };
}
