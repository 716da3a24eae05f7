import { mediaKind } from '../media-kind';
import { OutboundMessage } from '../provider.types';

type Parameter = Record<string, unknown>;

/**
 * The WhatsApp-Cloud-API request body for one message. Our message id travels as
 * `biz_opaque_callback_data`: the provider echoes it in status webhooks, so it is the reference we
 * reconcile on (the Cloud API has no request idempotency key).
 */
export function cloudApiPayload(msg: OutboundMessage): Record<string, unknown> {
  const base = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: msg.to.replace(/^\+/, ''),
    biz_opaque_callback_data: msg.messageId,
  };
  if (msg.template) return { ...base, type: 'template', template: templateObject(msg.template) };
  if (msg.attachment) {
    const kind = mediaKind(msg.attachment.url, msg.attachment.mimeType ?? null);
    const media: Parameter = { link: msg.attachment.url };
    if (msg.text && kind !== 'audio') media.caption = msg.text;
    if (kind === 'document' && msg.attachment.fileName) media.filename = msg.attachment.fileName;
    return { ...base, type: kind, [kind]: media };
  }
  return { ...base, type: 'text', text: { body: msg.text ?? '', preview_url: false } };
}

function templateObject(t: NonNullable<OutboundMessage['template']>): Record<string, unknown> {
  const components: Parameter[] = [];
  if (t.headerMediaUrl) {
    const kind = mediaKind(t.headerMediaUrl, null);
    components.push({ type: 'header', parameters: [{ type: kind, [kind]: { link: t.headerMediaUrl } }] });
  }
  if (t.variables.length > 0) {
    components.push({ type: 'body', parameters: t.variables.map((text) => ({ type: 'text', text })) });
  }
  // One dynamic URL suffix per URL button; `index` is the button's position among ALL the template's
  // buttons ([phone, url] -> 1). Scheduled payloads stored before buttonIndexes existed fall back to i.
  const indexes: readonly number[] | undefined = t.buttonIndexes;
  t.buttonVariables.forEach((suffix, i) => {
    components.push({
      type: 'button',
      sub_type: 'url',
      index: String(indexes?.[i] ?? i),
      parameters: [{ type: 'text', text: suffix }],
    });
  });
  // The Cloud API addresses a template by name + language (as submitted), not by its Graph id.
  return { name: t.name, language: { code: t.language ?? 'en' }, ...(components.length ? { components } : {}) };
}
