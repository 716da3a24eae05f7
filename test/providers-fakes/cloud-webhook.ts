import { createHmac } from 'node:crypto';

/** What the Cloud API POSTs to an app's webhook for message statuses (`field: "messages"`). */
export function cloudStatusWebhook(statuses: Record<string, unknown>[]): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'waba_platform',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '966500000001', phone_number_id: '1055' },
              statuses,
            },
          },
        ],
      },
    ],
  };
}

/** One status as the provider writes it (timestamp: unix seconds, as a string). */
export function cloudStatus(id: string, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '966501234567', ...extra };
}

/** The provider's `X-Hub-Signature-256` of the raw body. */
export function hubSignature(appSecret: string, raw: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}
