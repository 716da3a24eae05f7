import Redis from 'ioredis';
import { ApiError } from '../common/errors';
import { RedisPrefixCounters } from './prefix-counters.redis';
import { accountIdOf } from '../common/account-id';

describe(RedisPrefixCounters.name, () => {
  // A real client on a port nothing listens on: Redis down, as a replica sees it during an outage.
  let redis: Redis;
  let sut: RedisPrefixCounters;
  beforeEach(() => {
    redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 10 });
    redis.on('error', () => undefined);
    sut = new RedisPrefixCounters(redis, 'spec:', 3_600_000, () => Date.now());
  });
  afterEach(() => redis.disconnect());

  it('answers 503 SERVICE_UNAVAILABLE with a retry when Redis does not answer, never a bare error', async () => {
    const err: unknown = await sut
      .admit(accountIdOf('acc_1'), '+9665012', Date.now(), 0, true)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, extra: { retryAfterSeconds: 1 } });
    await expect(
      sut.unmarkBlocked({ id: 'frb_1', accountId: accountIdOf('acc_1'), prefix: '+9665012', until: 1 }),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });
});
