import { ErrorCode, statusOf } from './error-codes';

/** A domain error with a stable `code`; the exception filter turns it into the envelope. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { retryAfterSeconds?: number } & Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = statusOf(code);
  }

  static notFound(what = 'Resource'): ApiError {
    return new ApiError('NOT_FOUND', `${what} not found`);
  }

  static validation(message: string): ApiError {
    return new ApiError('VALIDATION_ERROR', message);
  }
}
