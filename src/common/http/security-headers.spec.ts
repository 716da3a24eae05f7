import express, { RequestHandler } from 'express';
import request from 'supertest';
import { helmetPolicies, securityHeaders } from './security-headers';

/** Every header of a GET on an app with only `headers` in front of a small JSON answer. */
async function headersFrom(headers: RequestHandler, path: string): Promise<Record<string, string>> {
  const app = express();
  app.disable('x-powered-by');
  app.use(headers);
  app.use((_req, res) => res.json({ ok: true }));
  const res = await request(app).get(path);
  const out = { ...(res.headers as Record<string, string>) };
  delete out.date;
  return out;
}

describe('securityHeaders', () => {
  const policies = helmetPolicies();

  it.each([
    ['/api/v2/account', policies.api],
    ['/docs', policies.docs],
    ['/docs/admin', policies.docs],
    ['/console/index.html', policies.console],
    ['/consoles', policies.api],
  ])('sets exactly what helmet sets on %s', async (path, policy) => {
    const expected = await headersFrom(policy, path);
    expect(expected['content-security-policy']).toBeDefined();
    expect(await headersFrom(securityHeaders(), path)).toEqual(expected);
  });
});
