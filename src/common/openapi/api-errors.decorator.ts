import { ApiExtension } from '@nestjs/swagger';
import type { ErrorCode } from '../errors';

/** Operation extension that carries the route's own error codes until the document is finished. */
export const ERROR_CODES_EXTENSION = 'x-error-codes';

/**
 * The error codes this route itself can answer with (beyond those every route of its kind can give:
 * see `commonErrorCodes`). The document turns them into one error response per HTTP status whose
 * `code` is the enum of exactly these codes, so a generated client can branch on `error.code`.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator {
  return ApiExtension(ERROR_CODES_EXTENSION, codes) as MethodDecorator;
}
