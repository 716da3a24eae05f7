import type { ChatView } from '../../src/chatapp-web/chats.service';
import { WahaFake } from '../providers-fakes/waha-fake';
import { createTestApp, TestAccount, TestApp } from './app';

/** A WAHA fake, an app pointed at it, and an account with a ready sandbox web session named "main". */
export async function startChatappWebApp(): Promise<{ t: TestApp; acc: TestAccount; waha: WahaFake }> {
  const waha = await new WahaFake().start();
  const t = await createTestApp({
    env: { WAHA_BASE_URL: waha.baseUrl, WAHA_API_KEY: waha.apiKey, WAHA_TIMEOUT_MS: '400' },
  });
  const acc = await t.createAccount();
  const res = await t
    .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
    .send({ name: 'main', status: 'ready' });
  expect(res.status).toBe(201);
  return { t, acc, waha };
}

/** GET /api/v2/chatapp-web/chats, and every page of it; the getter is read at call time (the app starts in beforeAll). */
export function chatListing(app: () => TestApp) {
  const chats = (key: string, query: Record<string, string | number>) =>
    app().http().get('/api/v2/chatapp-web/chats').query(query).set('X-API-Key', key);

  async function collect(
    key: string,
    query: Record<string, string | number>,
  ): Promise<{ items: ChatView[]; pages: number }> {
    const items: ChatView[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await chats(key, { ...query, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      pages++;
      items.push(...(res.body.data.chats as ChatView[]));
      cursor = res.body.data.nextCursor;
      expect(res.body.data.hasMore).toBe(cursor !== null);
      expect(pages).toBeLessThan(200);
    } while (cursor);
    return { items, pages };
  }

  return { chats, collect };
}
