import { ApiExtension } from '@nestjs/swagger';
import type { ErrorCode } from '../errors';

/** Operation extension that carries the route's own error codes until the document is finished. */
export const ERROR_CODES_EXTENSION = 'x-error-codes';

/** Operation extension marking a route that reads its body itself (see `ApiStreamedBody`). */
export const STREAMED_BODY_EXTENSION = 'x-streamed-body';

/**
 * The error codes this route itself can answer with (beyond those every route of its kind can give:
 * see `commonErrorCodes`). The document turns them into one error response per HTTP status whose
 * `code` is the enum of exactly these codes, so a generated client can branch on `error.code`.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator {
  return ApiExtension(ERROR_CODES_EXTENSION, codes) as MethodDecorator;
}

/**
 * The route streams its body itself (bootstrap's STREAMED_ROUTES): the JSON body parser never runs,
 * so none of its codes apply; the route lists the ones its own reader gives with @ApiErrors.
 */
export function ApiStreamedBody(): MethodDecorator {
  return ApiExtension(STREAMED_BODY_EXTENSION, true) as MethodDecorator;
}
