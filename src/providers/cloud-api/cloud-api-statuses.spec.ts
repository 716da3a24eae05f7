import { createHmac } from 'node:crypto';
import { receiptsFromWebhook, verifyHubSignature } from './cloud-api-statuses';

const NOW = 1_760_000_000_000;
const hook = (statuses: unknown[], field = 'messages') => ({
  object: 'whatsapp_business_account',
  entry: [{ id: 'waba', changes: [{ field, value: { messaging_product: 'whatsapp', statuses } }] }],
});

describe(receiptsFromWebhook.name, () => {
  it('maps sent, delivered, read and failed (with the provider error code)', () => {
    const body = hook([
      { id: 'wamid.1', status: 'sent', timestamp: '1760000001', recipient_id: '966501234567' },
      { id: 'wamid.1', status: 'delivered', timestamp: '1760000002' },
      { id: 'wamid.1', status: 'read', timestamp: '1760000003' },
      {
        id: 'wamid.2',
        status: 'failed',
        timestamp: '1760000004',
        errors: [{ code: 131026, title: 'Message undeliverable' }],
      },
    ]);
    expect(receiptsFromWebhook(body, NOW)).toEqual([
      {
        providerMessageId: 'wamid.1',
        status: 'sent',
        providerStatus: 'sent',
        errorCode: null,
        providerErrorCode: null,
        at: 1_760_000_001_000,
      },
      {
        providerMessageId: 'wamid.1',
        status: 'delivered',
        providerStatus: 'delivered',
        errorCode: null,
        providerErrorCode: null,
        at: 1_760_000_002_000,
      },
      {
        providerMessageId: 'wamid.1',
        status: 'read',
        providerStatus: 'read',
        errorCode: null,
        providerErrorCode: null,
        at: 1_760_000_003_000,
      },
      {
        providerMessageId: 'wamid.2',
        status: 'failed',
        providerStatus: 'failed',
        errorCode: 'UNDELIVERED',
        providerErrorCode: '131026',
        at: 1_760_000_004_000,
      },
    ]);
  });

  it('skips unknown statuses, entries without an id, other fields and malformed bodies', () => {
    expect(receiptsFromWebhook(hook([{ id: 'w', status: 'deleted' }, { status: 'read' }, null]), NOW)).toEqual([]);
    // Names an object inherits are not statuses.
    expect(
      receiptsFromWebhook(
        hook([
          { id: 'w', status: 'constructor' },
          { id: 'w', status: 'toString' },
        ]),
        NOW,
      ),
    ).toEqual([]);
    expect(receiptsFromWebhook(hook([{ id: 'w', status: 'read' }], 'message_template_status_update'), NOW)).toEqual([]);
    expect(receiptsFromWebhook({ entry: 'x' }, NOW)).toEqual([]);
    expect(receiptsFromWebhook(null, NOW)).toEqual([]);
    expect(receiptsFromWebhook(hook([{ id: 'w', status: 'read', timestamp: 'soon' }]), NOW)[0].at).toBe(NOW);
  });
});

describe(verifyHubSignature.name, () => {
  const raw = Buffer.from('{"entry":[]}');
  const good = `sha256=${createHmac('sha256', 'app-secret').update(raw).digest('hex')}`;

  it('accepts the HMAC-SHA256 of the raw body only', () => {
    expect(verifyHubSignature('app-secret', good, raw)).toBe(true);
    expect(verifyHubSignature('other', good, raw)).toBe(false);
    expect(verifyHubSignature('app-secret', good, Buffer.from('{"entry": []}'))).toBe(false);
    expect(verifyHubSignature('app-secret', good.replace('sha256=', 'sha1='), raw)).toBe(false);
    expect(verifyHubSignature('app-secret', undefined, raw)).toBe(false);
    expect(verifyHubSignature('app-secret', good, null)).toBe(false);
    expect(verifyHubSignature('app-secret', 'sha256=zz', raw)).toBe(false);
  });
});
