import { loadConfig } from '../config/app-config';
import { SecretBox } from './secret-box';

describe(SecretBox.name, () => {
  const sut = new SecretBox(loadConfig({ APP_SECRET: 'unit-test-secret-123456' }));

  it('seals so the plain text is not visible, and opens it again', () => {
    const sealed = sut.seal('whsec_super-secret');
    expect(sealed).not.toContain('super-secret');
    expect(sut.open(sealed)).toBe('whsec_super-secret');
  });

  it('refuses a tampered or foreign-key box', () => {
    const sealed = sut.seal('x');
    const other = new SecretBox(loadConfig({ APP_SECRET: 'another-secret-654321' }));
    expect(() => other.open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('y').toString('base64url');
    expect(() => sut.open(parts.join('.'))).toThrow();
  });
});
