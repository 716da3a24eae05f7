import type { WebSessionStatus } from '../web-session.types';
import type { ProviderChat } from './web-session-provider';

/** Readers for WAHA's loosely typed JSON, shared by the session, send and hook code. */
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A non-empty string, else null. */
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** WAHA chat ids are strings, or `{ _serialized }` objects on some engines. */
export function wahaId(v: unknown): string | null {
  return str(v) ?? (isObj(v) ? str(v._serialized) : null);
}

/** `+<digits>` for a phone-number JID (`...@c.us`, `...@s.whatsapp.net`), else null (groups, `@lid`). */
export function phoneFromJid(jid: string): string | null {
  const m = /^(\d{6,15})(?::\d+)?@(c\.us|s\.whatsapp\.net)$/.exec(jid);
  return m ? `+${m[1]}` : null;
}

/** One WAHA chat as a list item; null for what is not a conversation (status broadcast, channels). */
export function chatFromWaha(raw: unknown): ProviderChat | null {
  if (!isObj(raw)) return null;
  const id = wahaId(raw.id);
  if (!id) return null;
  let kind: ProviderChat['kind'];
  if (id.endsWith('@g.us')) kind = 'group';
  else if (/@(c\.us|s\.whatsapp\.net|lid)$/.test(id)) kind = 'direct';
  else return null;
  const title = str(raw.name) ?? str(raw.formattedTitle) ?? str(raw.subject) ?? id.split('@')[0];
  return { chatId: id, kind, title, phoneNumber: kind === 'direct' ? phoneFromJid(id) : null };
}

/** Our status for a WAHA session body (`{ status }`); null when it is missing or unknown, for the caller to refuse. */
export function statusFromWaha(body: unknown): WebSessionStatus | null {
  switch (isObj(body) ? str(body.status) : null) {
    case 'WORKING':
      return 'ready';
    case 'STARTING':
    case 'SCAN_QR_CODE':
      return 'starting';
    case 'STOPPED':
      return 'stopped';
    case 'FAILED':
      return 'failed';
    default:
      return null;
  }
}
