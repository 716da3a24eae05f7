import { messageTarget, nextPartStatus, stepsTo } from './lifecycle-rules';

describe('lifecycle rules', () => {
  it('moves a part forward only; duplicates and stale receipts change nothing', () => {
    expect(nextPartStatus('sent', 'delivered')).toBe('delivered');
    expect(nextPartStatus('delivered', 'delivered')).toBeNull();
    expect(nextPartStatus('read', 'delivered')).toBeNull();
    expect(nextPartStatus('sent', 'read')).toBe('read');
    expect(nextPartStatus('delivered', 'sent')).toBeNull();
  });

  it('takes a failure only while the part is sent; nothing after a failure', () => {
    expect(nextPartStatus('sent', 'failed')).toBe('failed');
    expect(nextPartStatus('delivered', 'failed')).toBeNull();
    expect(nextPartStatus('failed', 'read')).toBeNull();
    expect(nextPartStatus('failed', 'failed')).toBeNull();
  });

  it('a multi-part message is as far as its slowest part, failed when any part failed', () => {
    expect(messageTarget(['delivered', 'sent'])).toBe('sent');
    expect(messageTarget(['delivered', 'read'])).toBe('delivered');
    expect(messageTarget(['read', 'read'])).toBe('read');
    expect(messageTarget(['read', 'failed'])).toBe('failed');
  });

  it('read before delivered passes delivered; failed only from sent', () => {
    expect(stepsTo('sent', 'read')).toEqual(['delivered', 'read']);
    expect(stepsTo('delivered', 'read')).toEqual(['read']);
    expect(stepsTo('read', 'read')).toEqual([]);
    expect(stepsTo('sent', 'failed')).toEqual(['failed']);
    expect(stepsTo('delivered', 'failed')).toEqual([]);
    expect(stepsTo('queued', 'delivered')).toEqual([]);
    expect(stepsTo('failed', 'delivered')).toEqual([]);
    expect(stepsTo('sent', 'sent')).toEqual([]);
  });
});
