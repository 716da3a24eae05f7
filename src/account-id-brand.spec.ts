import type { Repository } from 'typeorm';
import { accountIdOf } from './common/account-id';
import type { MessageEntity } from './messaging/entities/message.entity';
import type { MessageLogRepository } from './messaging/message-log.repository';
import type { SuppressionsRepository } from './consent/suppressions.repository';

/**
 * Repositories take an AccountId, not a string (src/common/account-id.ts). What this spec proves is
 * checked by the compiler (`npm run typecheck` covers specs): each `@ts-expect-error` below fails
 * the build the day a plain string is accepted again, so a cross-account read written by accident
 * (an id from a body, a path or another record) does not compile.
 */
function crossAccountReads(
  log: MessageLogRepository,
  repo: Repository<MessageEntity>,
  suppressions: SuppressionsRepository,
) {
  const fromRequest = 'acc_someone_else';
  // @ts-expect-error a string is not an account id
  void log.findOwned(fromRequest, 'msg_1');
  // @ts-expect-error a TypeORM `where` on a branded column takes an AccountId too
  void repo.findOneBy({ accountId: fromRequest });
  // @ts-expect-error nor does a list of them
  void suppressions.list(fromRequest, { limit: 10 });
  // Only where the caller has established whose account it is (an operator route, a loop over accounts).
  void log.findOwned(accountIdOf(fromRequest), 'msg_1');
}

describe('AccountId', () => {
  it('is the plain id at run time: the brand costs nothing', () => {
    expect(accountIdOf('acc_1')).toBe('acc_1');
    expect(JSON.stringify({ accountId: accountIdOf('acc_1') })).toBe('{"accountId":"acc_1"}');
  });

  it('is what repositories require (the compiler checks crossAccountReads above)', () => {
    expect(crossAccountReads).toBeInstanceOf(Function);
  });
});
