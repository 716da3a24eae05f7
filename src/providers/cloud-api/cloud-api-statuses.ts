import { createHmac } from 'node:crypto';
import { safeEqualHex } from '../../common/constant-time';
import type { ProviderReceipt, ReceiptStatus } from '../provider-events';

/**
 * The Cloud API's message status webhook (`entry[].changes[]` with `field: "messages"`,
 * `value.statuses[]`), read into receipts. Pure functions; the route is in
 * templates/official/cloud-api-hook.controller.ts.
 */

const STATUSES = new Map<string, ReceiptStatus>([
  ['sent', 'sent'],
  ['delivered', 'delivered'],
  ['read', 'read'],
  ['failed', 'failed'],
]);

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>`, compared in constant time. */
export function verifyHubSignature(appSecret: string, header: string | undefined, rawBody: Buffer | null): boolean {
  if (!rawBody || typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest('hex');
  return safeEqualHex(expected, header.slice('sha256='.length).trim());
}

interface StatusEntry {
  id?: unknown;
  status?: unknown;
  timestamp?: unknown;
  errors?: { code?: unknown; title?: unknown }[];
}

/** Receipts from every `statuses[]` of the body; unknown statuses (`deleted`, `warning`...) and entries without an id are skipped. */
export function receiptsFromWebhook(body: unknown, now: number): ProviderReceipt[] {
  const receipts: ProviderReceipt[] = [];
  for (const change of changesOf(body, 'messages')) {
    const statuses = (change as { statuses?: unknown }).statuses;
    for (const s of Array.isArray(statuses) ? (statuses as StatusEntry[]) : []) {
      const status = typeof s?.status === 'string' ? STATUSES.get(s.status) : undefined;
      if (!status || typeof s.id !== 'string' || !s.id) continue;
      const error = Array.isArray(s.errors) ? s.errors[0] : undefined;
      receipts.push({
        providerMessageId: s.id,
        status,
        providerStatus: s.status as string,
        // The Cloud API does not tell expiry or carrier refusal apart: every failure is UNDELIVERED.
        errorCode: status === 'failed' ? 'UNDELIVERED' : null,
        providerErrorCode:
          status === 'failed' && error?.code !== undefined && error.code !== null
            ? String(error.code as string | number).slice(0, 40)
            : null,
        at: epochSeconds(s.timestamp) ?? now,
      });
    }
  }
  return receipts;
}

/** The `value` of every `entry[].changes[]` whose `field` is `field`. */
export function changesOf(body: unknown, field: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const entries = (body as { entry?: unknown } | null)?.entry;
  for (const entry of Array.isArray(entries) ? entries : []) {
    const changes = (entry as { changes?: unknown } | null)?.changes;
    for (const change of Array.isArray(changes) ? changes : []) {
      const c = change as { field?: unknown; value?: unknown } | null;
      if (c?.field === field && c.value !== null && typeof c.value === 'object')
        out.push(c.value as Record<string, unknown>);
    }
  }
  return out;
}

/** The provider's timestamps are unix seconds, as a string. */
function epochSeconds(v: unknown): number | null {
  const n =
    typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : typeof v === 'number' && Number.isFinite(v) ? v : NaN;
  return Number.isFinite(n) && n > 0 ? n * 1000 : null;
}

/** A text a contact sent to one of the Cloud API numbers (`value.messages[]` of type text). */
export interface CloudInboundText {
  /** The receiving number's id (`value.metadata.phone_number_id`). */
  phoneNumberId: string;
  /** The contact's number, E.164. */
  from: string;
  /** The provider's message id (`wamid...`). */
  id: string;
  text: string;
  at: number;
}

/** Every text message of the body (other types, and entries without a sender, id or number id, skipped). */
export function inboundTextsFromWebhook(body: unknown, now: number): CloudInboundText[] {
  const out: CloudInboundText[] = [];
  for (const change of changesOf(body, 'messages')) {
    const meta = change.metadata as { phone_number_id?: unknown } | undefined;
    const phoneNumberId = typeof meta?.phone_number_id === 'string' ? meta.phone_number_id : null;
    const messages = (change as { messages?: unknown }).messages;
    for (const m of Array.isArray(messages) ? (messages as Record<string, unknown>[]) : []) {
      const text = (m?.text as { body?: unknown } | undefined)?.body;
      if (!phoneNumberId || m?.type !== 'text' || typeof text !== 'string') continue;
      if (typeof m.from !== 'string' || !/^\+?\d{6,15}$/.test(m.from) || typeof m.id !== 'string' || !m.id) continue;
      out.push({
        phoneNumberId,
        from: `+${m.from.replace(/^\+/, '')}`,
        id: m.id.slice(0, 200),
        text,
        at: epochSeconds(m.timestamp) ?? now,
      });
    }
  }
  return out;
}
