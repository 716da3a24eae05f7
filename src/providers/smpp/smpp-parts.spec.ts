import { gsm7Text, unpackSeptets } from '../../common/sms/sms-segments';
import { ESM_CLASS_UDHI, smppParts } from './smpp-parts';

const UDH = { longMessage: 'udh', gsm7Packing: false, reference: 0x1a7 } as const;

describe('smppParts', () => {
  it('a text that fits one SMS: one short_message, data_coding 0 (GSM-7, one septet per octet) or 8 (UCS-2)', () => {
    expect(smppParts('Hi €', UDH)).toEqual([
      { data_coding: 0, esm_class: 0, short_message: Buffer.from([0x48, 0x69, 0x20, 0x1b, 0x65]) },
    ]);
    expect(smppParts('مرحبا', UDH)).toEqual([
      { data_coding: 8, esm_class: 0, short_message: Buffer.from('مرحبا', 'utf16le').swap16() },
    ]);
  });

  it('udh: one part per segment behind 05 00 03 ref total seq, UDHI set; the reference is 8 bits', () => {
    const text = 'a'.repeat(152) + '€' + 'b'.repeat(10);
    const parts = smppParts(text, UDH);
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => p.esm_class === ESM_CLASS_UDHI && p.data_coding === 0)).toBe(true);
    expect(parts.map((p) => [...p.short_message!.subarray(0, 6)])).toEqual([
      [5, 0, 3, 0xa7, 2, 1],
      [5, 0, 3, 0xa7, 2, 2],
    ]);
    expect(parts.map((p) => gsm7Text(p.short_message!.subarray(6))).join('')).toBe(text);
    // 153 septets at most: the escape pair moved whole to the second part.
    expect(parts[0].short_message!.length - 6).toBe(152);
  });

  it('UCS-2 parts carry 67 code units (134 octets) and keep surrogate pairs whole', () => {
    const text = 'م'.repeat(66) + '😀' + 'م'.repeat(70);
    const parts = smppParts(text, UDH);
    expect(parts.map((p) => p.data_coding)).toEqual([8, 8, 8]);
    expect(parts.map((p) => p.short_message!.length - 6)).toEqual([132, 134, 10]);
    expect(parts.map((p) => p.short_message!.subarray(6).swap16().toString('utf16le')).join('')).toBe(text);
  });

  it('packed GSM-7: 160 septets in 140 octets; parts with a fill bit after the header', () => {
    expect(smppParts('a'.repeat(160), { ...UDH, gsm7Packing: true })[0].short_message).toHaveLength(140);
    const text = 'x'.repeat(200) + '{}';
    const parts = smppParts(text, { ...UDH, gsm7Packing: true });
    expect(parts[0].short_message).toHaveLength(140);
    const septets = [153, 51];
    expect(parts.map((p, i) => gsm7Text(unpackSeptets(p.short_message!.subarray(6), septets[i], 1))).join('')).toBe(
      text,
    );
  });

  it('payload mode: a long text whole in message_payload', () => {
    const text = 'م'.repeat(100);
    expect(smppParts(text, { ...UDH, longMessage: 'payload' })).toEqual([
      { data_coding: 8, esm_class: 0, message_payload: Buffer.from(text, 'utf16le').swap16() },
    ]);
  });
});
