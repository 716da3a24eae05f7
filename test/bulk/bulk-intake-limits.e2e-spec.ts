import { request as httpRequest, IncomingMessage } from 'node:http';
import { createTestApp, REQUEST_ID_RE, TestAccount, TestApp } from '../support/app';
import { BULK_TEST_ENV_PATIENT, jobCount, post, rowCount, sms } from '../support/bulk-helpers';

/** Limits of the streamed bulk body: one element's size (BULK_MAX_ELEMENT_BYTES) and nesting depth. */
describe('Bulk intake limits (e2e)', () => {
  let t: TestApp;
  // Jobs stay `validating`; batches of 2 rows, so rows are stored before a late refusal.
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        ...BULK_TEST_ENV_PATIENT,
        BULK_VALIDATION_TICK_MS: '600000',
        BULK_DISPATCH_TICK_MS: '600000',
        BULK_INTAKE_BATCH: '2',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const expectNothingStored = async (acc: TestAccount, rowsBefore: number) => {
    expect(await jobCount(t, acc.id)).toBe(0);
    expect(await rowCount(t)).toBe(rowsBefore);
  };

  describe('element size (default 65536 bytes)', () => {
    it('an element over the limit after stored batches -> 400 INVALID_MESSAGE naming its index, nothing stored', async () => {
      const acc = await t.createAccount();
      const before = await rowCount(t);
      const big = sms(undefined, 'x'.repeat(70_000));
      const res = await post(t, acc.key, { messagesPerSecond: 1, messages: [sms(), sms(), sms(), big, sms()] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        code: 'INVALID_MESSAGE',
        error: 'messages[3] is larger than 65536 bytes',
        requestId: expect.stringMatching(REQUEST_ID_RE),
      });
      expect(res.headers.connection).toBe('close');
      await expectNothingStored(acc, before);
    });

    it('an element of exactly 65536 bytes is accepted', async () => {
      const acc = await t.createAccount();
      const base = Buffer.byteLength(JSON.stringify(sms(undefined, '')));
      const el = sms(undefined, 'y'.repeat(65536 - base));
      expect(Buffer.byteLength(JSON.stringify(el))).toBe(65536);
      expect((await post(t, acc.key, { messagesPerSecond: 1, messages: [el, el] })).status).toBe(202);
    });

    it('answers as soon as the limit is passed, before the client finished sending 8 MB, and closes the connection', async () => {
      const acc = await t.createAccount();
      const before = await rowCount(t);
      const total = 8 * 1024 * 1024;
      const piece = Buffer.alloc(64 * 1024, 'x');
      const url = new URL('/api/v2/messages/bulk', t.baseUrl);
      const req = httpRequest(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-API-Key': acc.key,
          'Idempotency-Key': 'huge',
          'Content-Length': String(total),
        },
      });
      // The server closes the connection after answering: the upload then fails, which is expected.
      req.on('error', () => undefined);
      const answered = new Promise<{ res: IncomingMessage; body: string; sentWhenAnswered: number }>((resolve) => {
        req.on('response', (res) => {
          const sentWhenAnswered = sent;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ res, body, sentWhenAnswered }));
        });
      });
      const closed = new Promise((r) => req.once('close', r));
      let gotAnswer = false;
      void answered.then(() => (gotAnswer = true));
      const head = Buffer.from(
        `{"messagesPerSecond":1,"messages":[${JSON.stringify(sms())},{"to":"+966501234567","channel":"local_sms","messageType":"free_text","content":{"text":"`,
      );
      let sent = head.length;
      req.write(head);
      // Write at the pace the server reads (backpressure); stop once it answered.
      while (sent < total && !gotAnswer) {
        const chunk = piece.subarray(0, Math.min(piece.length, total - sent));
        sent += chunk.length;
        if (!req.write(chunk)) await Promise.race([new Promise((r) => req.once('drain', r)), answered, closed]);
      }
      const { res, body, sentWhenAnswered } = await answered;
      req.destroy();
      expect(res.statusCode).toBe(400);
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(body)).toMatchObject({
        success: false,
        code: 'INVALID_MESSAGE',
        error: 'messages[1] is larger than 65536 bytes',
      });
      // The server stopped reading right after the limit: far less than the body was sent.
      expect(sentWhenAnswered).toBeLessThan(total / 2);
      await expectNothingStored(acc, before);
      // And it still serves.
      expect((await t.http().get('/health/live')).status).toBe(200);
    });

    it('a top-level value over the limit -> 400 INVALID_REQUEST_BODY', async () => {
      const acc = await t.createAccount();
      const res = await post(
        t,
        acc.key,
        `{"other":"${'z'.repeat(70_000)}","messagesPerSecond":1,"messages":[${JSON.stringify(sms())}]}`,
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'INVALID_REQUEST_BODY',
        error: 'The value of "other" is larger than 65536 bytes',
      });
      expect(await jobCount(t, acc.id)).toBe(0);
    });
  });

  describe('nesting depth (32 levels, the body object is level 1)', () => {
    /** An element whose `x` nests arrays so that the whole body is `levels` deep. */
    const nestedElement = (levels: number) => {
      const inner = levels - 3; // body object, messages array, element object
      return `{"channel":"local_sms","to":"+966501234567","messageType":"free_text","content":{"text":"hi"},"x":${'['.repeat(inner)}${']'.repeat(inner)}}`;
    };
    const reordered = (levels: number) =>
      nestedElement(levels).replace(
        '{"channel":"local_sms","to":"+966501234567"',
        '{"to":"+966501234567","channel":"local_sms"',
      );

    it('32 levels: accepted, and a replay with reordered keys (canonical form) returns the same job', async () => {
      const acc = await t.createAccount();
      const first = await post(
        t,
        acc.key,
        `{"messagesPerSecond":1,"messages":[${nestedElement(32)},${nestedElement(32)},${nestedElement(32)}]}`,
        'deep-ok',
      );
      expect(first.status).toBe(202);
      const replay = await post(
        t,
        acc.key,
        `{"messages":[${reordered(32)},${reordered(32)},${reordered(32)}],"messagesPerSecond":1}`,
        'deep-ok',
      );
      expect(replay.status).toBe(202);
      expect(replay.body.id).toBe(first.body.id);
      expect(await jobCount(t, acc.id)).toBe(1);
    });

    it.each([
      ['33 levels', nestedElement(33)],
      ['10k levels', nestedElement(10_000)],
    ])('%s in an element -> 400 INVALID_REQUEST_BODY, nothing stored', async (_what, deep) => {
      const acc = await t.createAccount();
      const before = await rowCount(t);
      const res = await post(
        t,
        acc.key,
        `{"messagesPerSecond":1,"messages":[${JSON.stringify(sms())},${JSON.stringify(sms())},${JSON.stringify(sms())},${deep}]}`,
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        code: 'INVALID_REQUEST_BODY',
        error: 'The body is nested deeper than 32 levels',
        requestId: expect.stringMatching(REQUEST_ID_RE),
      });
      await expectNothingStored(acc, before);
    });

    it('33 levels in a replay of a stored job -> 400, the stored job untouched', async () => {
      const acc = await t.createAccount();
      const first = await post(t, acc.key, `{"messagesPerSecond":1,"messages":[${nestedElement(32)}]}`, 'deep-replay');
      expect(first.status).toBe(202);
      const replay = await post(t, acc.key, `{"messagesPerSecond":1,"messages":[${nestedElement(33)}]}`, 'deep-replay');
      expect({ status: replay.status, code: replay.body.code }).toEqual({ status: 400, code: 'INVALID_REQUEST_BODY' });
      expect(await jobCount(t, acc.id)).toBe(1);
    });
  });
});
