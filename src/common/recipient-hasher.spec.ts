import { loadConfig } from '../config/app-config';
import { RecipientHasher } from './recipient-hasher';

describe(RecipientHasher.name, () => {
  const sut = new RecipientHasher(loadConfig({ APP_SECRET: 'unit-test-secret-123456' }));

  it('is stable for one account and recipient, and 64 hex characters', () => {
    const h = sut.hash('acc_1', '+966501234567');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(sut.hash('acc_1', '+966501234567')).toBe(h);
  });

  it('differs between accounts, recipients and secrets', () => {
    const h = sut.hash('acc_1', '+966501234567');
    expect(sut.hash('acc_2', '+966501234567')).not.toBe(h);
    expect(sut.hash('acc_1', '+966501234568')).not.toBe(h);
    const other = new RecipientHasher(loadConfig({ APP_SECRET: 'another-secret-654321' }));
    expect(other.hash('acc_1', '+966501234567')).not.toBe(h);
  });
});
