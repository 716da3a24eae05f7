import type { WebSessionEntity } from '../entities/web-session.entity';
import { chatFromWaha, phoneFromJid, statusFromWaha } from '../providers/waha.mapping';
import { parseWahaEvent } from './waha-events';

const session = { id: 'wss_1', name: 'wa', createdAt: Date.UTC(2026, 0, 1) } as WebSessionEntity;
const nowS = Math.floor(Date.UTC(2026, 0, 2) / 1000);
const fresh = { now: nowS * 1000, maxAgeMs: 300_000 };

describe('WAHA mapping', () => {
  it('reads phone JIDs only', () => {
    expect(phoneFromJid('966501234567@c.us')).toBe('+966501234567');
    expect(phoneFromJid('966501234567:12@s.whatsapp.net')).toBe('+966501234567');
    expect(phoneFromJid('123@g.us')).toBeNull();
    expect(phoneFromJid('1234567890@lid')).toBeNull();
  });

  it('maps chats and skips what is not a conversation', () => {
    expect(chatFromWaha({ id: { _serialized: '1@g.us' }, name: 'G' })).toEqual({
      chatId: '1@g.us',
      kind: 'group',
      title: 'G',
      phoneNumber: null,
    });
    expect(chatFromWaha({ id: '966500000001@c.us' })).toEqual({
      chatId: '966500000001@c.us',
      kind: 'direct',
      title: '966500000001',
      phoneNumber: '+966500000001',
    });
    expect(chatFromWaha({ id: 'status@broadcast' })).toBeNull();
    expect(chatFromWaha({ id: '123@newsletter' })).toBeNull();
    expect(chatFromWaha('nope')).toBeNull();
  });

  it('maps session statuses; null for a missing or unknown one', () => {
    expect(statusFromWaha({ status: 'WORKING' })).toBe('ready');
    expect(statusFromWaha({ status: 'SCAN_QR_CODE' })).toBe('starting');
    expect(statusFromWaha({ status: 'FAILED' })).toBe('failed');
    expect(statusFromWaha({ status: 'DANCING' })).toBeNull();
    expect(statusFromWaha({})).toBeNull();
    expect(statusFromWaha(null)).toBeNull();
  });
});

describe('parseWahaEvent', () => {
  const msg = (payload: Record<string, unknown>, event = 'message') => ({
    event,
    session: 'default',
    payload: { id: 'm1', from: '966500000002@c.us', body: 'hi', timestamp: nowS, ...payload },
  });

  it('maps a live direct message', () => {
    expect(parseWahaEvent(msg({ _data: { notifyName: 'Ann' } }), session, fresh)).toEqual({
      kind: 'message',
      input: {
        from: { jid: '966500000002@c.us', displayName: 'Ann' },
        text: 'hi',
        isGroup: false,
        remoteChatId: '966500000002@c.us',
        remoteMessageId: 'm1',
        fromMe: false,
        historySync: false,
        media: null,
        timestamp: nowS * 1000,
      },
    });
  });

  it('flags history: engine flag or older than the session', () => {
    const flagged = parseWahaEvent(msg({ _data: { isHistory: true } }), session, fresh);
    const old = parseWahaEvent(msg({ timestamp: Math.floor(session.createdAt / 1000) - 3600 }), session, fresh);
    expect(flagged.kind === 'message' && flagged.input.historySync).toBe(true);
    expect(old.kind === 'message' && old.input.historySync).toBe(true);
  });

  it('describes media by type', () => {
    const doc = parseWahaEvent(
      msg({ hasMedia: true, media: { url: 'http://x/f', mimetype: 'application/pdf', filename: 'a.pdf' } }),
      session,
      fresh,
    );
    expect(doc.kind === 'message' && doc.input.media).toEqual({
      mediaType: 'document',
      mimetype: 'application/pdf',
      fileName: 'a.pdf',
    });
    const voice = parseWahaEvent(msg({ hasMedia: true, _data: { type: 'ptt' } }), session, fresh);
    expect(voice.kind === 'message' && voice.input.media).toEqual({
      mediaType: 'audio',
      mimetype: null,
      fileName: null,
    });
  });

  it('refuses a session.status without a known status as a validation error', () => {
    for (const payload of [{ status: 'DANCING' }, {}, undefined]) {
      expect(() => parseWahaEvent({ event: 'session.status', timestamp: fresh.now, payload }, session, fresh)).toThrow(
        expect.objectContaining({ code: 'VALIDATION_ERROR' }),
      );
    }
    expect(
      parseWahaEvent({ event: 'session.status', timestamp: fresh.now, payload: { status: 'STOPPED' } }, session, fresh),
    ).toEqual({ kind: 'status', status: 'stopped' });
  });

  it('ignores a session.status stamped outside the freshness window (a replay); requires the stamp', () => {
    const status = (timestamp: unknown) =>
      parseWahaEvent({ event: 'session.status', timestamp, payload: { status: 'WORKING' } }, session, fresh);
    expect(status(fresh.now - 300_000)).toEqual({ kind: 'status', status: 'ready' });
    expect(status(fresh.now + 300_000)).toEqual({ kind: 'status', status: 'ready' });
    expect(status(fresh.now - 300_001)).toEqual({ kind: 'ignored', event: 'session.status' });
    expect(status(fresh.now + 300_001)).toEqual({ kind: 'ignored', event: 'session.status' });
    for (const missing of [undefined, '1767312000000', null, Number.NaN]) {
      expect(() => status(missing)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    }
  });

  it('treats a timestamp a Date cannot hold as absent', () => {
    for (const timestamp of [1e300, 8.64e12 + 1, -8.64e12 - 1, 'soon']) {
      const out = parseWahaEvent(msg({ timestamp }), session, fresh);
      expect(out.kind === 'message' && [out.input.timestamp, out.input.historySync]).toEqual([undefined, false]);
    }
    const edge = parseWahaEvent(msg({ timestamp: 8.64e12 }), session, fresh);
    expect(edge.kind === 'message' && edge.input.timestamp).toBe(8.64e15);
  });

  it('refuses ids and chats longer than the stored columns', () => {
    expect(() => parseWahaEvent(msg({ id: 'x'.repeat(201) }), session, fresh)).toThrow(/at most 200/);
    expect(() => parseWahaEvent(msg({ from: `${'1'.repeat(196)}@g.us` }), session, fresh)).toThrow(/at most 200/);
    expect(parseWahaEvent(msg({ id: { _serialized: 'x'.repeat(200) } }), session, fresh).kind).toBe('message');
  });

  it('ignores other events and refuses malformed messages', () => {
    expect(parseWahaEvent({ event: 'message.ack', payload: {} }, session, fresh)).toEqual({
      kind: 'ignored',
      event: 'message.ack',
    });
    expect(() => parseWahaEvent({ payload: {} }, session, fresh)).toThrow('event is required');
    expect(() => parseWahaEvent({ event: 'message', payload: { body: 'x' } }, session, fresh)).toThrow(/payload.id/);
  });

  describe('message.ack', () => {
    const ack = (ack: number, extra: Record<string, unknown> = {}) =>
      parseWahaEvent(
        {
          event: 'message.ack',
          payload: { id: 'true_966500000002@c.us_AAA', fromMe: true, ack, timestamp: nowS, ...extra },
        },
        session,
        fresh,
      );

    it.each([
      [1, 'sent', null],
      [2, 'delivered', null],
      [3, 'read', null],
      [4, 'read', null],
      [-1, 'failed', 'UNDELIVERED'],
    ])('ack %i -> %s', (level, status, errorCode) => {
      expect(ack(level, { ackName: 'X' })).toEqual({
        kind: 'receipt',
        receipt: {
          providerMessageId: 'true_966500000002@c.us_AAA',
          status,
          errorCode,
          providerStatus: `ack ${level} X`,
          providerErrorCode: null,
          at: nowS * 1000,
        },
      });
    });

    it('ignores pending acks, unknown levels and acks of messages we did not send', () => {
      expect(ack(0)).toEqual({ kind: 'ignored', event: 'message.ack' });
      expect(ack(7)).toEqual({ kind: 'ignored', event: 'message.ack' });
      expect(ack(3, { fromMe: false })).toEqual({ kind: 'ignored', event: 'message.ack' });
      expect(ack(3, { id: { _serialized: 'true_x@c.us_B' }, timestamp: undefined })).toMatchObject({
        receipt: { providerMessageId: 'true_x@c.us_B', at: fresh.now },
      });
    });
  });
});
