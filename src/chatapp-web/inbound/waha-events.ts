import { ApiError } from '../../common/errors';
import type { ProviderReceipt } from '../../providers/provider-events';
import type { WebSessionEntity } from '../entities/web-session.entity';
import { isObj, statusFromWaha, str, wahaId } from '../providers/waha.mapping';
import type { WebSessionStatus } from '../web-session.types';
import { REMOTE_ID_MAX_LENGTH, type InboundMessageInput } from './inbound.types';

export type WahaHookAction =
  | { kind: 'message'; input: InboundMessageInput }
  | { kind: 'status'; status: WebSessionStatus }
  | { kind: 'receipt'; receipt: ProviderReceipt }
  | { kind: 'ignored'; event: string };

/** The latest time a Date holds (ms); a later timestamp would make the event's ISO time throw. */
const MAX_DATE_MS = 8.64e15;

/** When a signed event stops counting: `now` and the largest accepted distance from it. */
export interface EventFreshness {
  now: number;
  maxAgeMs: number;
}

/**
 * Reads one WAHA webhook event. `message` / `message.any` become an inbound message (the service
 * drops own and history ones), `session.status` a status change; every other event is ignored.
 */
export function parseWahaEvent(body: unknown, session: WebSessionEntity, freshness: EventFreshness): WahaHookAction {
  if (!isObj(body) || !str(body.event)) throw ApiError.validation('event is required');
  const event = body.event as string;
  if (event === 'session.status') {
    const status = statusFromWaha(body.payload);
    if (!status) throw ApiError.validation('payload.status must be a known WAHA session status');
    // The signature covers the body but not when it was sent: a captured event could be replayed
    // verbatim to move the session back. WAHA stamps every event (ms); a stale one changes nothing.
    const at = body.timestamp;
    if (typeof at !== 'number' || !Number.isFinite(at))
      throw ApiError.validation('timestamp (ms since epoch) is required on session.status');
    if (Math.abs(freshness.now - at) > freshness.maxAgeMs) return { kind: 'ignored', event };
    return { kind: 'status', status };
  }
  if (event === 'message.ack') return parseAck(body.payload, freshness.now) ?? { kind: 'ignored', event };
  if (event !== 'message' && event !== 'message.any') return { kind: 'ignored', event };
  const p = body.payload;
  if (!isObj(p)) throw ApiError.validation('payload is required');
  const id = wahaId(p.id);
  const chat = str(p.from);
  if (!id || !chat) throw ApiError.validation('payload.id and payload.from are required');
  // Both are stored in columns of this size; longer is a bad event, not a database error.
  if (id.length > REMOTE_ID_MAX_LENGTH || chat.length > REMOTE_ID_MAX_LENGTH) {
    throw ApiError.validation(`payload.id and payload.from must be at most ${REMOTE_ID_MAX_LENGTH} characters`);
  }
  const data = isObj(p._data) ? p._data : {};
  const isGroup = chat.endsWith('@g.us');
  const author = (isGroup ? (str(p.participant) ?? str(p.author)) : null) ?? chat;
  const timestampMs = epochSecondsToMs(p.timestamp);
  // History sync: flagged by the engine, or a message older than our registration of the session.
  const history =
    p.isHistory === true ||
    data.isHistory === true ||
    p.source === 'history' ||
    (timestampMs !== undefined && timestampMs < session.createdAt - 60_000);
  const media = isObj(p.media) ? p.media : {};
  const mimetype = str(media.mimetype) ?? str(data.mimetype);
  return {
    kind: 'message',
    input: {
      from: {
        jid: author,
        displayName: str(data.notifyName) ?? str(data.pushName) ?? str(p.notifyName) ?? author.split('@')[0],
      },
      text: str(p.body) ?? str(p.caption) ?? '',
      isGroup,
      remoteChatId: chat,
      remoteMessageId: id,
      fromMe: p.fromMe === true,
      historySync: history,
      media:
        p.hasMedia === true
          ? {
              mediaType: mediaTypeOf(mimetype, str(data.type)),
              mimetype,
              fileName: str(media.filename) ?? str(data.filename),
            }
          : null,
      timestamp: timestampMs,
    },
  };
}

/** WAHA ack levels: -1 error, 0 pending, 1 server, 2 device, 3 read, 4 played. */
const ACKS: Record<number, Pick<ProviderReceipt, 'status' | 'errorCode'>> = {
  [-1]: { status: 'failed', errorCode: 'UNDELIVERED' },
  1: { status: 'sent', errorCode: null },
  2: { status: 'delivered', errorCode: null },
  3: { status: 'read', errorCode: null },
  4: { status: 'read', errorCode: null },
};

/** `message.ack` of a message we sent -> a receipt matched by WAHA's message id; pending and others' acks are ignored. */
function parseAck(p: unknown, now: number): WahaHookAction | null {
  if (!isObj(p) || p.fromMe === false || typeof p.ack !== 'number') return null;
  const id = wahaId(p.id);
  const mapped = ACKS[p.ack];
  if (!id || !mapped) return null;
  const name = str(p.ackName);
  return {
    kind: 'receipt',
    receipt: {
      providerMessageId: id,
      ...mapped,
      providerStatus: name ? `ack ${p.ack} ${name}` : `ack ${p.ack}`,
      providerErrorCode: null,
      at: epochSecondsToMs(p.timestamp) ?? now,
    },
  };
}

/** WAHA's epoch seconds as ms; absent (the event then says now) unless a Date can hold it. */
function epochSecondsToMs(v: unknown): number | undefined {
  if (typeof v !== 'number') return undefined;
  const ms = v * 1000;
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : undefined;
}

function mediaTypeOf(mimetype: string | null, engineType: string | null): string {
  if (engineType && ['image', 'video', 'audio', 'ptt', 'document', 'sticker'].includes(engineType))
    return engineType === 'ptt' ? 'audio' : engineType;
  const top = mimetype?.split('/')[0];
  return top === 'image' || top === 'video' || top === 'audio' ? top : 'document';
}
