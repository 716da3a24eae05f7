import type { InboundSms, InboundSmsPart, ProviderReceipt, ReceiptStatus, UndeliveredCode } from '../provider-events';

/**
 * What a deliver_sm from the SMSC carries (SMPP 3.4 section 4.6.1): a delivery receipt for one of our
 * submissions, or an SMS sent to one of our numbers. Pure functions: the SMPP session and the intakes
 * are in smpp-deliveries.ts.
 */
export type SmppDelivery =
  | { kind: 'receipt'; receipt: ProviderReceipt }
  /** A receipt that moves nothing (ENROUTE, ACCEPTD, an SME acknowledgement): acknowledged only. */
  | { kind: 'ignored'; reason: string }
  | { kind: 'inbound'; sms: InboundSms }
  | { kind: 'invalid'; reason: string };

/**
 * How the SMSC writes a message id in its receipts. `as_submitted`: as in submit_sm_resp (the SMPP
 * 3.4 rule). `decimal`: the submit_sm_resp id is hexadecimal and receipt texts carry its decimal
 * value (several SMSCs do): every id is then kept as that decimal number, both when sent and when
 * a receipt arrives, so the two meet.
 */
export type SmppReceiptIdFormat = 'as_submitted' | 'decimal';

/** The deliver_sm fields we read (as the `smpp` package decodes them). */
export interface DeliverSmFields {
  [field: string]: unknown;
  esm_class?: unknown;
  source_addr?: unknown;
  destination_addr?: unknown;
  short_message?: unknown;
  message_payload?: unknown;
  receipted_message_id?: unknown;
  message_state?: unknown;
  network_error_code?: unknown;
}

/** esm_class bits 2-5 (message type). */
const MESSAGE_TYPE_MASK = 0x3c;
const SMSC_DELIVERY_RECEIPT = 0x04;
const INTERMEDIATE_NOTIFICATION = 0x20;

/** Receipt `stat:` words (and message_state values) -> the lifecycle; null: not final, ignored. */
const STATS: Record<string, { status: ReceiptStatus; errorCode: UndeliveredCode | null } | null> = {
  DELIVRD: { status: 'delivered', errorCode: null },
  UNDELIV: { status: 'failed', errorCode: 'UNDELIVERED' },
  EXPIRED: { status: 'failed', errorCode: 'EXPIRED' },
  REJECTD: { status: 'failed', errorCode: 'REJECTED_BY_CARRIER' },
  // Deleted by the SMSC or its fate unknown: the recipient did not get it as far as anyone can tell.
  DELETED: { status: 'failed', errorCode: 'UNDELIVERED' },
  UNKNOWN: { status: 'failed', errorCode: 'UNDELIVERED' },
  ACCEPTD: null,
  ENROUTE: null,
};
/** message_state TLV (SMPP 3.4 section 5.2.28) -> the receipt word it stands for. */
const MESSAGE_STATES: Record<number, string> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

export interface ReceiptText {
  id: string | null;
  stat: string | null;
  err: string | null;
}

/** Reads `id:... sub:... dlvrd:... submit date:... done date:... stat:... err:... text:...` (Appendix B). */
export function parseReceiptText(text: string): ReceiptText {
  const field = (name: string): string | null => {
    const m = new RegExp(`(?:^|\\s)${name}:(\\S*)`, 'i').exec(text);
    return m && m[1] ? m[1] : null;
  };
  return { id: field('id'), stat: field('stat')?.toUpperCase() ?? null, err: field('err') };
}

/** The id as we keep it: the SMSC's own string, or its decimal value in `decimal` mode. */
export function canonicalSubmitId(id: string, format: SmppReceiptIdFormat): string {
  const trimmed = id.trim();
  if (format === 'as_submitted' || !/^[0-9a-f]+$/i.test(trimmed)) return trimmed;
  return BigInt(`0x${trimmed}`).toString(10);
}

/**
 * The id a receipt refers to, in the form the send stored. The receipted_message_id TLV is the
 * submit_sm_resp id (SMPP 3.4), so it is canonicalised like one; the text's `id:` is the decimal
 * value in `decimal` mode, and the submit_sm_resp id otherwise.
 */
export function receiptMessageId(
  tlvId: string | null,
  textId: string | null,
  format: SmppReceiptIdFormat,
): string | null {
  if (tlvId) return canonicalSubmitId(tlvId, format);
  if (!textId) return null;
  if (format === 'as_submitted') return textId;
  return /^\d+$/.test(textId) ? BigInt(textId).toString(10) : canonicalSubmitId(textId, format);
}

export function parseDeliverSm(pdu: DeliverSmFields, now: number, format: SmppReceiptIdFormat): SmppDelivery {
  const messageType = Number(pdu.esm_class ?? 0) & MESSAGE_TYPE_MASK;
  const text = messageText(pdu.message_payload) ?? messageText(pdu.short_message) ?? '';
  if (messageType === 0) {
    return {
      kind: 'inbound',
      sms: {
        from: address(pdu.source_addr),
        to: address(pdu.destination_addr),
        text,
        providerMessageId: null,
        at: now,
        part: concatPart(pdu),
      },
    };
  }
  if (messageType !== SMSC_DELIVERY_RECEIPT && messageType !== INTERMEDIATE_NOTIFICATION) {
    return { kind: 'ignored', reason: `esm_class message type 0x${messageType.toString(16)} (SME acknowledgement)` };
  }
  const parsed = parseReceiptText(text);
  const state = typeof pdu.message_state === 'number' ? MESSAGE_STATES[pdu.message_state] : undefined;
  const stat = parsed.stat ?? state ?? null;
  const id = receiptMessageId(cstring(pdu.receipted_message_id), parsed.id, format);
  if (!id)
    return { kind: 'invalid', reason: 'receipt without a message id (no id: in the text, no receipted_message_id)' };
  if (!stat || !Object.hasOwn(STATS, stat))
    return { kind: 'invalid', reason: `receipt for ${id} with an unknown stat "${stat ?? ''}"` };
  const mapped = STATS[stat];
  if (!mapped) return { kind: 'ignored', reason: `receipt for ${id}: ${stat} is not final` };
  const providerErrorCode = mapped.status === 'failed' ? errorCodeOf(parsed.err, pdu.network_error_code) : null;
  return {
    kind: 'receipt',
    receipt: {
      providerMessageId: id,
      status: mapped.status,
      providerStatus: stat,
      errorCode: mapped.errorCode,
      providerErrorCode,
      at: now,
    },
  };
}

/** `err:` from the text (`000` is no error), else the network_error_code TLV as `type:code`. */
function errorCodeOf(err: string | null, network: unknown): string | null {
  if (err && !/^0+$/.test(err)) return err.slice(0, 40);
  if (Buffer.isBuffer(network) && network.length === 3) return `${network[0]}:${network.readUInt16BE(1)}`;
  return err;
}

/**
 * The concatenation of an inbound part: the UDH's 8-bit (IEI 00) or 16-bit (IEI 08) reference IE,
 * else the SAR TLVs (sar_msg_ref_num, sar_total_segments, sar_segment_seqnum). Null for a whole SMS
 * (and for a header that names a single part or an impossible sequence number).
 */
export function concatPart(pdu: DeliverSmFields): InboundSmsPart | null {
  const body = pdu.message_payload ?? pdu.short_message;
  const udh = body !== null && typeof body === 'object' && 'udh' in body ? (body as { udh: unknown }).udh : null;
  let part: InboundSmsPart | null = null;
  for (const ie of Array.isArray(udh) ? (udh as unknown[]) : []) {
    if (!Buffer.isBuffer(ie)) continue;
    if (ie[0] === 0x00 && ie[1] === 3 && ie.length >= 5) part = { ref: `u8:${ie[2]}`, total: ie[3], seq: ie[4] };
    if (ie[0] === 0x08 && ie[1] === 4 && ie.length >= 6)
      part = { ref: `u16:${ie.readUInt16BE(2)}`, total: ie[4], seq: ie[5] };
  }
  const sar = [pdu.sar_msg_ref_num, pdu.sar_total_segments, pdu.sar_segment_seqnum];
  if (!part && sar.every((v) => typeof v === 'number'))
    part = { ref: `sar:${Number(sar[0])}`, total: Number(sar[1]), seq: Number(sar[2]) };
  if (!part || part.total < 2 || part.seq < 1 || part.seq > part.total) return null;
  return part;
}

function messageText(v: unknown): string | null {
  const m = v !== null && typeof v === 'object' && 'message' in v ? (v as { message: unknown }).message : v;
  if (typeof m === 'string') return m;
  if (Buffer.isBuffer(m)) return m.toString('latin1');
  return null;
}

function cstring(v: unknown): string | null {
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

/** A source/destination address: digits as E.164 (`+` added), a sender name as given. */
function address(v: unknown): string {
  const s = typeof v === 'string' ? v.trim() : '';
  return /^\d{6,15}$/.test(s) ? `+${s}` : s;
}
