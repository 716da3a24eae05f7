import { loadConfig } from '../config/app-config';
import { CursorCodec } from './cursor';
import { ApiError } from './errors';

describe(CursorCodec.name, () => {
  const sut = new CursorCodec(loadConfig({ APP_SECRET: 'unit-test-secret-123456' }));

  it('round-trips a position within its scope', () => {
    const c = sut.encode('messages:acc_1', { id: 'msg_9' });
    expect(sut.decode('messages:acc_1', c)).toEqual({ id: 'msg_9' });
  });

  it('treats an absent cursor as the first page', () => {
    expect(sut.decode('s', undefined)).toBeNull();
    expect(sut.decode('s', '')).toBeNull();
  });

  it('refuses a cursor of another scope (another account) with VALIDATION_ERROR', () => {
    const c = sut.encode('messages:acc_1', { id: 'x' });
    expect(() => sut.decode('messages:acc_2', c)).toThrow(ApiError);
    try {
      sut.decode('messages:acc_2', c);
    } catch (e) {
      expect((e as ApiError).code).toBe('VALIDATION_ERROR');
    }
  });

  it('refuses a tampered cursor', () => {
    const c = sut.encode('s', { id: 'a' });
    const [body, sig] = c.split('.');
    const forged = Buffer.from(JSON.stringify({ s: 's', p: { id: 'b' } })).toString('base64url');
    expect(() => sut.decode('s', `${forged}.${sig}`)).toThrow('cursor is invalid');
    expect(() => sut.decode('s', `${body}.AAAA`)).toThrow('cursor is invalid');
    expect(() => sut.decode('s', 'garbage')).toThrow('cursor is invalid');
  });
});
