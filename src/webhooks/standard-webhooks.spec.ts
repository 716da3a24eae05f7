import { createHmac } from 'node:crypto';
import { endpointKey, generateEndpointSecret, rawKey, signatureHeaders } from './standard-webhooks';

describe('Standard Webhooks signing', () => {
  it('generates whsec_ + base64 of 32 bytes', () => {
    const s = generateEndpointSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpointKey(s)).toHaveLength(32);
  });

  it('signs id.timestamp.body with each key, space-separated', () => {
    const k1 = endpointKey(generateEndpointSecret());
    const k2 = rawKey('bearer-token');
    const h = signatureHeaders('whd_1', 1700000000, '{"a":1}', [k1, k2]);
    const sig = (k: Buffer) => createHmac('sha256', k).update('whd_1.1700000000.{"a":1}').digest('base64');
    expect(h).toEqual({
      'webhook-id': 'whd_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${sig(k1)} v1,${sig(k2)}`,
    });
  });
});
