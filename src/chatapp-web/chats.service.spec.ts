import { CursorCodec } from '../common/cursor';
import { ApiError } from '../common/errors';
import { loadConfig } from '../config/app-config';
import { ProviderError } from '../providers/provider.types';
import { ChatsService } from './chats.service';
import type { WebSessionEntity } from './entities/web-session.entity';
import type { WebSessionProvider } from './providers/web-session-provider';
import type { WebSessionProviders } from './providers/web-session-providers';
import type { WebSessionsService } from './web-sessions.service';
import { accountIdOf } from '../common/account-id';

describe(ChatsService.name, () => {
  const session = {
    id: 'wss_1',
    accountId: 'acc_1',
    name: 'wa',
    provider: 'waha',
    status: 'ready',
  } as WebSessionEntity;
  let fault: Error;
  const provider: WebSessionProvider = {
    name: 'waha',
    status: () => Promise.reject(fault),
    listChats: () => Promise.resolve({ chats: [], next: null }),
  };
  const sessions = {
    findOwned: () => Promise.resolve(session),
    setStatus: () => Promise.resolve(),
  } as unknown as WebSessionsService;
  const providers = { forSession: () => provider } as unknown as WebSessionProviders;
  const sut = new ChatsService(
    sessions,
    providers,
    new CursorCodec(loadConfig({ APP_SECRET: 'unit-test-secret-123456' })),
  );
  const list = () => sut.list(accountIdOf('acc_1'), { accountId: 'wa', type: 'all', limit: 20, cursor: null });

  it('maps provider faults like sends do: rate limited -> 429 with a retry hint', async () => {
    fault = new ProviderError('rate_limited', 'slow down', 7_500);
    await expect(list()).rejects.toMatchObject({
      code: 'PROVIDER_RATE_LIMITED',
      status: 429,
      extra: { retryAfterSeconds: 8 },
    });
    fault = new ProviderError('unavailable', 'down');
    await expect(list()).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE', status: 503 });
    fault = new ProviderError('failed', 'broken');
    await expect(list()).rejects.toMatchObject({ code: 'PROVIDER_ERROR', status: 502 });
  });

  it('leaves other errors alone: an API error keeps its code, a bug stays a 500', async () => {
    fault = new ApiError('NOT_FOUND', 'gone');
    await expect(list()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    fault = new TypeError('bug');
    await expect(list()).rejects.toBeInstanceOf(TypeError);
  });
});
