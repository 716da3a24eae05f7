import { gsm7Septets, packSeptets, splitSms, type SmsEncoding } from '../../common/sms/sms-segments';

/** data_coding: 0 the SMSC default alphabet (GSM 03.38), 8 UCS-2 (UTF-16BE). */
export const DATA_CODING: Record<SmsEncoding, number> = { gsm7: 0x00, ucs2: 0x08 };
/** esm_class bit: short_message starts with a user data header. */
export const ESM_CLASS_UDHI = 0x40;

export interface SmppPartOptions {
  /** `udh`: one submit_sm per part with a concatenation header; `payload`: one submit_sm, the whole text in message_payload. */
  longMessage: 'udh' | 'payload';
  /** GSM-7 packed 8 septets into 7 octets (else one septet per octet). */
  gsm7Packing: boolean;
  /** The concatenation reference (8 bits) the parts of one message share. */
  reference: number;
}

/** The body fields of one submit_sm. */
export interface SmppPart {
  data_coding: number;
  esm_class: number;
  short_message?: Buffer;
  message_payload?: Buffer;
}

/**
 * The submit_sm bodies of a text, in part order: one when it fits a single SMS (or in payload mode),
 * else one per part (common/sms: 153 septets or 67 UTF-16 units each) behind the 8-bit-reference
 * concatenation header `05 00 03 ref total seq` with esm_class UDHI.
 */
export function smppParts(text: string, opts: SmppPartOptions): SmppPart[] {
  const { encoding, parts } = splitSms(text);
  const dataCoding = DATA_CODING[encoding];
  const encode = (t: string, fillBits: number): Buffer => {
    if (encoding === 'ucs2') return Buffer.from(t, 'utf16le').swap16();
    const septets = gsm7Septets(t);
    return opts.gsm7Packing ? packSeptets(septets, fillBits) : Buffer.from(septets);
  };
  if (parts.length === 1) return [{ data_coding: dataCoding, esm_class: 0, short_message: encode(text, 0) }];
  if (opts.longMessage === 'payload')
    return [{ data_coding: dataCoding, esm_class: 0, message_payload: encode(text, 0) }];
  const ref = opts.reference & 0xff;
  return parts.map((part, i) => ({
    data_coding: dataCoding,
    esm_class: ESM_CLASS_UDHI,
    // After the 6-octet header, packed septets start on a septet boundary: 1 fill bit (48 + 1 = 7 x 7).
    short_message: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, ref, parts.length, i + 1]), encode(part, 1)]),
  }));
}
