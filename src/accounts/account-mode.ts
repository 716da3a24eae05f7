import type { AccountId } from '../common/account-id';

/**
 * Test mode (issue 30). A key is live or test. An account's test data lives under its test twin: a
 * second `accounts` row whose id is the live id behind `test_`, created when the first test key is
 * issued. Test keys belong to the twin, so everything a test key reads or writes is scoped by the
 * twin's id exactly as tenancy scopes accounts: no list, counter or export can mix the two modes,
 * and no repository needs a second parameter. The twin's wallet is the test balance.
 */
export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

const TEST_PREFIX = 'test_';
/** A LIKE pattern of every test twin's id (live ids start with `acc_`), for SQL that spans accounts. */
export const TEST_ACCOUNT_ID_LIKE = 'test%';

/** Live ids are generated (`acc_...`) and never start with `test_`. */
export function modeOfAccount(accountId: string): KeyMode {
  return accountId.startsWith(TEST_PREFIX) ? 'test' : 'live';
}

/** Every resource's `livemode`: false for data of an account's test mode. */
export function isLiveAccount(accountId: string): boolean {
  return !accountId.startsWith(TEST_PREFIX);
}

/** The test twin of a live account. */
export function testAccountIdOf(liveAccountId: AccountId): AccountId {
  return isLiveAccount(liveAccountId) ? ((TEST_PREFIX + liveAccountId) as AccountId) : liveAccountId;
}

/** The live account a twin belongs to (a live id is its own). */
export function liveAccountIdOf(accountId: AccountId): AccountId {
  return isLiveAccount(accountId) ? accountId : (accountId.slice(TEST_PREFIX.length) as AccountId);
}
