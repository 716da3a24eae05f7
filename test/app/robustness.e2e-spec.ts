import { DataSource } from 'typeorm';
import { createTestApp, REQUEST_ID_RE, TestAccount, TestApp } from '../support/app';

/** No malformed or too-deep body on any creating route may produce a 5xx: each gets a 4xx envelope. */
describe('Robustness (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  describe('malformed bodies', () => {
    let acc: TestAccount;
    beforeAll(async () => {
      acc = await t.createAccount();
    });

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
      [
        'nested junk',
        JSON.stringify({
          to: { $gt: '' },
          channel: ['local_sms'],
          messageType: 7,
          content: 'x',
          template: 'x',
          messages: {},
          name: {},
          code: [],
        }),
      ],
      [
        'huge numbers',
        JSON.stringify({
          to: '1'.repeat(500),
          messagesPerSecond: 1e308,
          codeLength: -1e308,
          expiresInMinutes: 'NaN',
          messages: [null, [], 1],
        }),
      ],
      ['prototype keys', '{"__proto__":{"admin":true},"constructor":{"prototype":{}},"to":"+966501234567"}'],
      ['truncated', '{"to": "+9665'],
    ];

    for (const route of routes) {
      for (const [label, body] of bodies) {
        it(`POST ${route} with ${label} -> 4xx envelope`, async () => {
          const res = await t
            .http()
            .post(route)
            .set('X-API-Key', acc.key)
            .set('Idempotency-Key', `robust-${label}`)
            .set('Content-Type', 'application/json')
            .send(body);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(res.body).toMatchObject({ success: false, code: expect.any(String), error: expect.any(String) });
          expect(res.body.requestId).toMatch(REQUEST_ID_RE);
        });
      }
    }
  });

  /** Nesting deeper than 32 levels is refused before any recursive consumer sees it (it was a 500). */
  describe('JSON nesting limit', () => {
    let acc: TestAccount;
    beforeAll(async () => {
      acc = await t.createAccount();
    });

    /** Levels of arrays: the body object is level 1, so `nest(31)` as a field value makes 32. */
    const nest = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const sms = (extra: string) =>
      `{"to":"+966501234567","channel":"local_sms","messageType":"free_text","content":{"text":"hi","x":${extra}}}`;
    const postRaw = (route: string, body: string) =>
      t.http().post(route).set('X-API-Key', acc.key).set('Content-Type', 'application/json').send(body);
    const messageCount = async () =>
      Number(
        (await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', [acc.id]))[0].n,
      );
    const templateCount = async () =>
      Number(
        (await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM templates WHERE account_id = ?', [acc.id]))[0].n,
      );

    it.each([
      ['33 levels', sms(nest(31))],
      ['10k levels', sms(nest(9_999))],
      ['10k levels of objects', `{"to":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`],
    ])('POST /api/v2/messages/send with %s -> 400 INVALID_REQUEST_BODY, nothing stored', async (_what, body) => {
      const res = await postRaw('/api/v2/messages/send', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        code: 'INVALID_REQUEST_BODY',
        error: 'The body is nested deeper than 32 levels',
        requestId: expect.stringMatching(REQUEST_ID_RE),
      });
      expect(await messageCount()).toBe(0);
    });

    it('32 levels are accepted (the limit is inclusive)', async () => {
      const res = await postRaw('/api/v2/messages/send', sms(nest(30)));
      expect(res.status).toBe(201);
    });

    it.each([
      ['33 levels', `{"name":"deep_one","category":"sms","subType":"otp","content":"c {{1}}","buttons":${nest(32)}}`],
      ['10k levels', `{"name":"deep_two","category":"chatapp","buttons":[${nest(10_000)}]}`],
    ])(
      'POST /api/v2/templates with %s -> 400 INVALID_REQUEST_BODY (JSON and multipart payload)',
      async (_what, body) => {
        const json = await postRaw('/api/v2/templates', body);
        expect({ status: json.status, code: json.body.code }).toEqual({ status: 400, code: 'INVALID_REQUEST_BODY' });
        const multipart = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).field('payload', body);
        expect({ status: multipart.status, code: multipart.body.code }).toEqual({
          status: 400,
          code: 'INVALID_REQUEST_BODY',
        });
        expect(await templateCount()).toBe(0);
      },
    );

    it('template buttonVariables of arrays on send -> 400, not 500', async () => {
      const res = await postRaw(
        '/api/v2/messages/send',
        '{"to":"+966501234567","channel":"chatapp","messageType":"template","template":{"id":"tpl_x","buttonVariables":[[]]}}',
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: expect.any(String) });
    });
  });
});
