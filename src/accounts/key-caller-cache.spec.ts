import { FakeClock } from '../common/fake-clock';
import { loadConfig } from '../config/app-config';
import type { KeyCallerRow } from './api-keys.repository';
import { AccountEntity } from './entities/account.entity';
import { KeyCallerCache } from './key-caller-cache';

function row(accountId: string): KeyCallerRow {
  return { lastUsedAt: null, account: Object.assign(new AccountEntity(), { id: accountId }) };
}

describe(KeyCallerCache.name, () => {
  const clock = new FakeClock();
  const sut = new KeyCallerCache(loadConfig({ NODE_ENV: 'test' }), clock);

  it('answers a lookup for API_KEY_CACHE_MS (500 ms by default), then asks again', () => {
    sut.keep('key_a', row('acc_a'), sut.begin('acc_a'));
    expect(sut.get('key_a')?.account.id).toBe('acc_a');
    clock.advance(499);
    expect(sut.get('key_a')).not.toBeNull();
    clock.advance(1);
    expect(sut.get('key_a')).toBeNull();
  });

  it("forgets every key of an account once it changed, and only that account's", () => {
    sut.keep('key_b1', row('acc_b'), sut.begin('acc_b'));
    sut.keep('key_b2', row('acc_b'), sut.begin('acc_b'));
    sut.keep('key_c', row('acc_c'), sut.begin('acc_c'));
    sut.forgetAccount('acc_b');
    expect(sut.get('key_b1')).toBeNull();
    expect(sut.get('key_b2')).toBeNull();
    expect(sut.get('key_c')).not.toBeNull();
  });

  it('does not keep a lookup that was in flight while its account changed', () => {
    const version = sut.begin('acc_d');
    sut.forgetAccount('acc_d'); // e.g. a revocation committed while the SELECT ran
    sut.keep('key_d', row('acc_d'), version);
    expect(sut.get('key_d')).toBeNull();
    sut.keep('key_d', row('acc_d'), sut.begin('acc_d'));
    expect(sut.get('key_d')).not.toBeNull();
  });

  it('keeps nothing with API_KEY_CACHE_MS=0', () => {
    const off = new KeyCallerCache(loadConfig({ NODE_ENV: 'test', API_KEY_CACHE_MS: '0' }), clock);
    off.keep('key_e', row('acc_e'), off.begin('acc_e'));
    expect(off.get('key_e')).toBeNull();
  });
});
