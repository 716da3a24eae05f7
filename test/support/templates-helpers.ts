import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
