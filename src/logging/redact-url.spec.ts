import { REDACTED, redactUrl, SECRET_QUERY_PARAMS } from './redact-url';

describe('redactUrl', () => {
  it.each([...SECRET_QUERY_PARAMS])('redacts the value of %s', (name) => {
    const out = redactUrl(`/hooks/x?a=1&${name}=s3cr3t-value&b=2`);
    expect(out).toBe(`/hooks/x?a=1&${name}=${REDACTED}&b=2`);
    expect(out).not.toContain('s3cr3t-value');
  });

  it('matches names case-insensitively and percent-encoded, and every repetition', () => {
    const out = redactUrl('/h?TOKEN=aa1&hub%2Everify_token=bb2&hub.verify_token=cc3&Api_Key=dd4');
    expect(out).toBe(
      `/h?TOKEN=${REDACTED}&hub%2Everify_token=${REDACTED}&hub.verify_token=${REDACTED}&Api_Key=${REDACTED}`,
    );
  });

  it('keeps the path and harmless parameters byte for byte', () => {
    expect(redactUrl('/hooks/chatapp/template-status?hub.mode=subscribe&hub.challenge=12345&hub.verify_token=x')).toBe(
      `/hooks/chatapp/template-status?hub.mode=subscribe&hub.challenge=12345&hub.verify_token=${REDACTED}`,
    );
    expect(redactUrl('/api/v2/messages?limit=10&cursor=abc%3D')).toBe('/api/v2/messages?limit=10&cursor=abc%3D');
    expect(redactUrl('/api/v2/account')).toBe('/api/v2/account');
    expect(redactUrl('/x?token')).toBe('/x?token');
    expect(redactUrl('/x?%E0%A4%A=1&token=z')).toBe(`/x?%E0%A4%A=1&token=${REDACTED}`);
  });
});
