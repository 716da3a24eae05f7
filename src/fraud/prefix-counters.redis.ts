import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { ApiError } from '../common/errors';
import type { PrefixTally } from './fraud-verdict';
import { activeKey, BlockMark, PrefixCounters } from './prefix-counters';
import type { AccountId } from '../common/account-id';

// One hash per (account, prefix): fields `<minute>:s` (sent), `<minute>:v` (verified) and `<minute>:n`
// (sent to new numbers). The block in force is a key `<prefix>fraud:b:<account|*>|<prefix>` holding
// `<id> <until>`. Each call is one script: one round trip, atomic on the server (an admitted code
// costs one).
// Admit: the tally before this code (the window's minutes from ARGV[1]), then the code counted in
// its minute (ARGV[2]; ARGV[3] '1' for a new number), minutes older than the window deleted.
const ADMIT = `
local since, minute = tonumber(ARGV[1]), tonumber(ARGV[2])
local h = redis.call('HGETALL', KEYS[1])
local s, v, n = 0, 0, 0
for i = 1, #h, 2 do
  local sep = string.find(h[i], ':')
  local m, k, val = tonumber(string.sub(h[i], 1, sep - 1)), string.sub(h[i], sep + 1), tonumber(h[i + 1])
  if m < since then
    redis.call('HDEL', KEYS[1], h[i])
  elseif k == 's' then s = s + val
  elseif k == 'v' then v = v + val
  elseif k == 'n' and m == minute then n = n + val end
end
redis.call('HINCRBY', KEYS[1], minute .. ':s', 1)
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], minute .. ':n', 1) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {s, v, n, redis.call('GET', KEYS[2]) or '', redis.call('GET', KEYS[3]) or ''}`;

const UNCOUNT = `
if tonumber(redis.call('HGET', KEYS[1], ARGV[1] .. ':s') or '0') > 0 then
  redis.call('HINCRBY', KEYS[1], ARGV[1] .. ':s', -1)
  if ARGV[2] == '1' then redis.call('HINCRBY', KEYS[1], ARGV[1] .. ':n', -1) end
end`;

// A verified code counts only while its send does (its minute still in the hash).
const COUNT_VERIFIED = `
if redis.call('HEXISTS', KEYS[1], ARGV[1] .. ':s') == 1 then redis.call('HINCRBY', KEYS[1], ARGV[1] .. ':v', 1) end`;

const UNMARK = `
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. ' ' then redis.call('DEL', KEYS[1]) end`;

type Scripted = Redis & {
  fraudAdmit(
    counter: string,
    block: string,
    platform: string,
    since: number,
    minute: number,
    fresh: string,
    ttlMs: number,
  ): Promise<unknown[]>;
  fraudUncount(counter: string, minute: number, fresh: string): Promise<unknown>;
  fraudCountVerified(counter: string, minute: number): Promise<unknown>;
  fraudUnmark(block: string, id: string): Promise<unknown>;
};

/** The counters in Redis (REDIS_URL set): the same contract as the database store. */
export class RedisPrefixCounters implements PrefixCounters {
  private readonly log = new Logger(RedisPrefixCounters.name);
  private readonly redis: Scripted;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {
    redis.defineCommand('fraudAdmit', { numberOfKeys: 3, lua: ADMIT });
    redis.defineCommand('fraudUncount', { numberOfKeys: 1, lua: UNCOUNT });
    redis.defineCommand('fraudCountVerified', { numberOfKeys: 1, lua: COUNT_VERIFIED });
    redis.defineCommand('fraudUnmark', { numberOfKeys: 1, lua: UNMARK });
    this.redis = redis as Scripted;
  }

  async admit(
    accountId: AccountId,
    prefix: string,
    now: number,
    since: number,
    newRecipient: boolean,
  ): Promise<PrefixTally> {
    const [s, v, n, own, platform] = await this.call(() =>
      this.redis.fraudAdmit(
        this.counterKey(accountId, prefix),
        this.blockKey(accountId, prefix),
        this.blockKey(null, prefix),
        since,
        Math.floor(now / 60_000),
        newRecipient ? '1' : '0',
        this.windowMs + 120_000,
      ),
    );
    // The key's expiry runs on the server's clock; the block's own end is what counts.
    const blocks = [own, platform]
      .map((raw) => String(raw).split(' '))
      .filter(([id, until]) => id && Number(until) > now)
      .map(([id, until]) => ({ id, until: Number(until) }))
      .sort((a, b) => b.until - a.until);
    return { sends: Number(s), verified: Number(v), newThisMinute: Number(n), block: blocks[0] ?? null };
  }

  async uncount(accountId: AccountId, prefix: string, minute: number, newRecipient: boolean): Promise<void> {
    await this.call(() =>
      this.redis.fraudUncount(this.counterKey(accountId, prefix), minute, newRecipient ? '1' : '0'),
    );
  }

  async countVerified(accountId: AccountId, prefix: string, minute: number): Promise<void> {
    await this.call(() => this.redis.fraudCountVerified(this.counterKey(accountId, prefix), minute));
  }

  async reset(accountId: AccountId, prefix: string): Promise<void> {
    await this.call(() => this.redis.del(this.counterKey(accountId, prefix)));
  }

  async markBlocked(mark: BlockMark): Promise<void> {
    const ttl = Math.max(1000, mark.until - this.now());
    await this.call(() =>
      this.redis.set(this.blockKey(mark.accountId, mark.prefix), `${mark.id} ${mark.until}`, 'PX', ttl),
    );
  }

  async unmarkBlocked(mark: BlockMark): Promise<void> {
    await this.call(() => this.redis.fraudUnmark(this.blockKey(mark.accountId, mark.prefix), mark.id));
  }

  /** Old minutes leave each hash as it is written to, and idle hashes expire: nothing to do. */
  async prune(): Promise<number> {
    return 0;
  }

  /**
   * A Redis call; a Redis that does not answer (down, restarting) is a 503 with a retry, never a 500:
   * every call here comes before the code is stored or paid, or after its record is committed.
   */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      this.log.warn({ err }, 'fraud guard: Redis did not answer');
      throw new ApiError('SERVICE_UNAVAILABLE', "The fraud guard's counters (Redis) did not answer; retry shortly", {
        retryAfterSeconds: 1,
      });
    }
  }

  private counterKey(accountId: AccountId, prefix: string): string {
    return `${this.keyPrefix}fraud:c:${accountId}|${prefix}`;
  }

  private blockKey(accountId: AccountId | null, prefix: string): string {
    return `${this.keyPrefix}fraud:b:${activeKey(accountId, prefix)}`;
  }
}
