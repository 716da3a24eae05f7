import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { createTestApp, TestApp } from '../support/app';
import { CONSOLE_DIST } from '../support/console-build';

const CONSOLE_CSP =
  "default-src 'none';script-src 'self';style-src 'self';img-src 'self';media-src 'self';connect-src 'self';manifest-src 'self';base-uri 'none';form-action 'none';frame-ancestors 'none'";

describe('Console: served at /console', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('index.html for the console and for its client routes, never cached, under the strict CSP', async () => {
    for (const path of ['/console', '/console/', '/console/bulk/job_1', '/console/operator/senders']) {
      const res = await t.http().get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.text).toContain('<div id="root"></div>');
      // No inline script or style: every script and stylesheet is a file of the build.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.text).not.toMatch(/<style|style="/);
    }
  });

  it('hashed assets are cached for a year; a missing asset is the 404 envelope, not index.html', async () => {
    const js = readdirSync(join(CONSOLE_DIST, 'assets')).find((f) => f.endsWith('.js'))!;
    const asset = await t.http().get(`/console/assets/${js}`).expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await t.http().get('/console/assets/nope-123.js').expect(404);
    expect(missing.body).toEqual({
      success: false,
      code: 'NOT_FOUND',
      error: 'Console asset not found',
      requestId: expect.any(String),
    });
    const post = await t.http().post('/console/').send({}).expect(404);
    expect(post.body.code).toBe('NOT_FOUND');
  });

  it('the API keeps its own CSP and /docs keeps the Swagger UI policy', async () => {
    const api = await t.http().get('/health/live').expect(200);
    expect(api.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    const docs = await t.http().get('/docs/').expect(200);
    expect(docs.headers['content-security-policy']).toContain("script-src 'self'");
    expect(docs.headers['content-security-policy']).not.toBe(CONSOLE_CSP);
    // /consolex is not the console.
    await t.http().get('/consolex').expect(404);
  });

  it('gzipped JavaScript stays under the 300 KB budget', () => {
    const dir = join(CONSOLE_DIST, 'assets');
    const bytes = readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
    expect(bytes).toBeLessThan(300 * 1024);
  });
});
