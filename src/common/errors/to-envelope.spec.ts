import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { ApiError } from './api-error';
import { toEnvelope } from './to-envelope';

describe('toEnvelope', () => {
  const rid = 'msgreq_1_abc';

  it('maps an ApiError to its status and code, keeping extras', () => {
    const m = toEnvelope(new ApiError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 3 }), rid);
    expect(m).toEqual({
      status: 429,
      unexpected: false,
      body: { success: false, code: 'RATE_LIMITED', error: 'slow down', requestId: rid, retryAfterSeconds: 3 },
    });
  });

  it('maps body-parser failures', () => {
    expect(toEnvelope({ type: 'entity.parse.failed', status: 400 }, rid).body.code).toBe('INVALID_REQUEST_BODY');
    expect(toEnvelope({ type: 'entity.too.large', status: 413 }, rid).status).toBe(413);
  });

  it('maps Nest HTTP exceptions', () => {
    expect(toEnvelope(new NotFoundException(), rid).body.code).toBe('NOT_FOUND');
    expect(toEnvelope(new PayloadTooLargeException(), rid).body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('maps a lock wait timeout or a connection the server closed to 503, retry shortly', () => {
    for (const err of [
      { driverError: { errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT' } },
      { driverError: { fatal: true, code: 'PROTOCOL_CONNECTION_LOST' } },
    ]) {
      const m = toEnvelope(err, rid);
      expect(m).toEqual({
        status: 503,
        unexpected: false,
        body: {
          success: false,
          code: 'SERVICE_UNAVAILABLE',
          error: 'The database could not complete the request in time; retry shortly',
          requestId: rid,
          retryAfterSeconds: 1,
        },
      });
    }
  });

  it('hides anything unexpected behind INTERNAL_ERROR', () => {
    const m = toEnvelope(new Error('ER_DUP_ENTRY: Duplicate entry for key secret'), rid);
    expect(m.status).toBe(500);
    expect(m.unexpected).toBe(true);
    expect(m.body).toEqual({ success: false, code: 'INTERNAL_ERROR', error: 'Internal server error', requestId: rid });
  });
});
