import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, TestAccount, TestApp } from './app';

/** A fresh media directory per app (never the repo's data/media). */
export function mediaDir(): string {
  return mkdtempSync(join(tmpdir(), 'tpl-media-'));
}

export const chatappBody = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'order_update',
  category: 'chatapp',
  subType: 'utility',
  language: 'en',
  body: 'Hi {{1}}, your order {{2}} has shipped',
  bodyParameters: [
    { index: 1, label: 'Sara' },
    { index: 2, label: 'A-100' },
  ],
  ...over,
});

export const smsBody = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'login_code',
  category: 'sms',
  subType: 'otp',
  content: 'Your code is {{1}}',
  ...over,
});

/** The app (with its own media directory) and the account the template suites work in. */
export async function startTemplatesApp(): Promise<{ t: TestApp; acc: TestAccount }> {
  const t = await createTestApp({ env: { MEDIA_DIR: mediaDir() } });
  const acc = await t.createAccount();
  return { t, acc };
}

/** Template requests as the suite's account; the getters are read at call time (the app starts in beforeAll). */
export function templateRequests(app: () => TestApp, account: () => TestAccount) {
  const post = (body: unknown, key = account().key) =>
    app()
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', key)
      .send(body as object);
  const get = (id: string, key = account().key) => app().http().get(`/api/v2/templates/${id}`).set('X-API-Key', key);
  let seq = 0;
  /** A unique valid name per test (names are letters and underscores only). */
  const uniq = (base: string) =>
    `${base}_${'abcdefghijklmnopqrstuvwxyz'[seq % 26]}${'abcdefghijklmnopqrstuvwxyz'[Math.floor(seq++ / 26) % 26]}`;

  async function expect400(body: Record<string, unknown>, field: string): Promise<void> {
    const res = await post({ ...body, name: body.name ?? uniq('bad') });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.error).toContain(field);
  }

  return { post, get, uniq, expect400 };
}
