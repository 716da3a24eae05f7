import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { Writable } from 'node:stream';
import { currentRequest } from './request-context';
import { requestLogMiddleware, requestMixin } from './request-log';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level, mixin: requestMixin }, stream) };
}

function appWith(logger: pino.Logger) {
  const app = express();
  let n = 0;
  app.use((req: express.Request & { requestId?: string }, res, next) => {
    req.requestId = `req_${++n}`;
    res.setHeader('x-request-id', req.requestId);
    next();
  });
  app.use(requestLogMiddleware(logger));
  app.use((req, _res, next) => currentRequest.run(req, next));
  app.get('/ok', (_req, res) => {
    logger.warn('inside');
    res.json({ ok: true });
  });
  app.get('/boom', (_req, res) => res.status(503).json({ ok: false }));
  app.get('/health/live', (_req, res) => res.json({ ok: true }));
  return app;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setImmediate(r));
}

describe('requestLogMiddleware', () => {
  it('writes one info line per request: method, redacted URL, status, duration and request id', async () => {
    const { lines, logger } = capture('info');
    const res = await request(appWith(logger)).get('/ok?token=s3cret&a=1').set('x-api-key', 'msk_live_secret');
    await until(() => lines.some((l) => l.msg === 'request completed'));
    const line = lines.find((l) => l.msg === 'request completed')!;
    expect(line).toMatchObject({
      level: 30,
      req: { id: res.headers['x-request-id'], method: 'GET', url: '/ok?token=[REDACTED]&a=1' },
      res: { statusCode: 200 },
    });
    expect(typeof line.responseTime).toBe('number');
    // A line written inside the request names it too.
    expect(lines.find((l) => l.msg === 'inside')).toMatchObject({ req: { id: res.headers['x-request-id'] } });
    expect(JSON.stringify(lines)).not.toMatch(/s3cret|msk_live_secret/);
  });

  it('marks a 5xx as errored, skips health probes, and writes nothing below info', async () => {
    const { lines, logger } = capture('info');
    await request(appWith(logger)).get('/health/live').expect(200);
    await request(appWith(logger)).get('/boom').expect(503);
    await until(() => lines.length > 0);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request errored',
        res: { statusCode: 503 },
        req: expect.objectContaining({ url: '/boom' }),
      }),
    ]);
    const quiet = capture('warn');
    await request(appWith(quiet.logger)).get('/boom').expect(503);
    expect(quiet.lines).toEqual([]);
  });
});
