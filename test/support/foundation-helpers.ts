import { REQUEST_ID_RE } from './app';

/** The error envelope every failure carries: status, code, a message, the request id in body and header. */
export function expectEnvelope(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, code });
  expect(typeof res.body.error).toBe('string');
  expect(res.body.requestId).toMatch(REQUEST_ID_RE);
  expect(res.headers['x-request-id']).toBe(res.body.requestId);
}
