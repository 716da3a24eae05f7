import { loadConfig } from '../config/app-config';
import { VerificationCodes } from './verification-codes';

describe(VerificationCodes.name, () => {
  const sut = new VerificationCodes(loadConfig({ APP_SECRET: 'unit-test-secret-0123456789' }));

  it('generates codes of the requested length, digits only, leading zeros kept', () => {
    for (const length of [4, 6, 8]) {
      for (let i = 0; i < 200; i++) expect(sut.generate(length)).toMatch(new RegExp(`^\\d{${length}}$`));
    }
  });

  it('hashes per verification: same code, different ids -> different hashes; hash hides the code', () => {
    const a = sut.hash('ver_a', '123456');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(sut.hash('ver_b', '123456'));
    expect(a).toBe(sut.hash('ver_a', '123456'));
  });

  it('depends on the app secret', () => {
    const other = new VerificationCodes(loadConfig({ APP_SECRET: 'another-secret-0123456789' }));
    expect(other.hash('ver_a', '123456')).not.toBe(sut.hash('ver_a', '123456'));
  });

  it('matches only the right code for the right id', () => {
    const stored = sut.hash('ver_a', '004211');
    expect(sut.matches('ver_a', '004211', stored)).toBe(true);
    expect(sut.matches('ver_a', '4211', stored)).toBe(false);
    expect(sut.matches('ver_a', '004212', stored)).toBe(false);
    expect(sut.matches('ver_b', '004211', stored)).toBe(false);
    expect(sut.matches('ver_a', '004211', 'abcd')).toBe(false);
  });
});
