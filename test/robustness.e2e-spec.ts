import { createTestApp, REQUEST_ID_RE, TestAccount, TestApp } from './support/app';

/** No malformed body on any creating route may produce a 5xx: each gets a 4xx envelope. */
describe('Robustness against malformed bodies (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acc = await t.createAccount();
  });
  afterAll(async () => t.close());

  const routes = [
    '/api/v2/messages/send',
    '/api/v2/messages/bulk',
    '/api/v2/verification/send',
    '/api/v2/verification/check',
    '/api/v2/templates',
    '/api/v2/sms-senders',
  ];
  const bodies: [string, string][] = [
    ['array', '[]'],
    ['string', '"hello"'],
    ['number', '42'],
    ['null', 'null'],
    ['nested junk', JSON.stringify({ to: { $gt: '' }, channel: ['local_sms'], messageType: 7, content: 'x', template: 'x', messages: {}, name: {}, code: [] })],
    ['huge numbers', JSON.stringify({ to: '1'.repeat(500), messagesPerSecond: 1e308, codeLength: -1e308, expiresInMinutes: 'NaN', messages: [null, [], 1] })],
    ['prototype keys', '{"__proto__":{"admin":true},"constructor":{"prototype":{}},"to":"+966501234567"}'],
    ['truncated', '{"to": "+9665'],
  ];

  for (const route of routes) {
    for (const [label, body] of bodies) {
      it(`POST ${route} with ${label} -> 4xx envelope`, async () => {
        const res = await t.http().post(route).set('X-API-Key', acc.key).set('Idempotency-Key', `robust-${label}`).set('Content-Type', 'application/json').send(body);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.body).toMatchObject({ success: false, code: expect.any(String), error: expect.any(String) });
        expect(res.body.requestId).toMatch(REQUEST_ID_RE);
      });
    }
  }
});
