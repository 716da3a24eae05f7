import { REQUEST_ID_RE } from './app';

type ErrorResponse = { status: number; body: Record<string, unknown> };

/**
 * The error envelope `{success:false, code, error, requestId}` with this status and code; `error`, when
 * given, is the exact message (a string) or matches it (a RegExp).
 */
export function expectError(res: ErrorResponse, status: number, code: string, error?: string | RegExp): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body.success).toBe(false);
  expect(typeof res.body.error).toBe('string');
  if (typeof error === 'string') expect(res.body.error).toBe(error);
  else if (error) expect(res.body.error).toMatch(error);
  expect(res.body.requestId).toMatch(REQUEST_ID_RE);
}

/** `expectError`, and the request id echoed in the `X-Request-Id` header. */
export function expectEnvelope(
  res: ErrorResponse & { headers: Record<string, string> },
  status: number,
  code: string,
): void {
  expectError(res, status, code);
  expect(res.headers['x-request-id']).toBe(res.body.requestId);
}
