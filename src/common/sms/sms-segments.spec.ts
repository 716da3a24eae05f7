import {
  gsm7Septets,
  gsm7Text,
  packSeptets,
  smsEncodingOf,
  smsSegments,
  splitSms,
  unpackSeptets,
} from './sms-segments';

describe('sms-segments', () => {
  // The same counts as sms-segments-calculator 1.3.0 and split-sms 0.1.7 give for these texts.
  it.each([
    ['160 GSM characters', 'a'.repeat(160), 'gsm7', 1],
    ['161 GSM characters', 'a'.repeat(161), 'gsm7', 2],
    ['306 GSM characters (2 x 153)', 'a'.repeat(306), 'gsm7', 2],
    ['307 GSM characters', 'a'.repeat(307), 'gsm7', 3],
    ['80 euro signs (160 septets)', '€'.repeat(80), 'gsm7', 1],
    ['81 euro signs', '€'.repeat(81), 'gsm7', 2],
    ['extension characters count two', '[]{}^~\\|'.repeat(10), 'gsm7', 1],
    ['70 Arabic letters', 'م'.repeat(70), 'ucs2', 1],
    ['71 Arabic letters', 'م'.repeat(71), 'ucs2', 2],
    ['134 Arabic letters (2 x 67)', 'م'.repeat(134), 'ucs2', 2],
    ['135 Arabic letters', 'م'.repeat(135), 'ucs2', 3],
    ['35 emoji (70 code units)', '😀'.repeat(35), 'ucs2', 1],
    ['36 emoji', '😀'.repeat(36), 'ucs2', 2],
    ['one Arabic letter makes a Latin text UCS-2', 'Hello مرحبا', 'ucs2', 1],
    ['an empty text', '', 'gsm7', 1],
  ])('%s', (_name, text, encoding, segments) => {
    expect(smsSegments(text)).toEqual({ encoding, segments });
  });

  it('cuts GSM-7 parts at 153 septets and never between ESC and its character', () => {
    const text = 'a'.repeat(152) + '€' + 'b'.repeat(10);
    const { parts } = splitSms(text);
    expect(parts).toEqual(['a'.repeat(152), '€' + 'b'.repeat(10)]);
    expect(parts.join('')).toBe(text);
  });

  it('cuts UCS-2 parts at 67 code units and never inside a surrogate pair', () => {
    const text = 'م'.repeat(66) + '😀' + 'م'.repeat(5);
    const { encoding, parts } = splitSms(text);
    expect(encoding).toBe('ucs2');
    expect(parts).toEqual(['م'.repeat(66), '😀' + 'م'.repeat(5)]);
  });

  it('encodes GSM-7 septets with the extension table and decodes them back', () => {
    expect(gsm7Septets('@A€[')).toEqual([0x00, 0x41, 0x1b, 0x65, 0x1b, 0x3c]);
    const text = 'Price: 10€ {ok} [x] ~^|\\ @£$¥ ÄÖÑÜ§¿äöñüà\n';
    expect(smsEncodingOf(text)).toBe('gsm7');
    expect(gsm7Text(gsm7Septets(text))).toBe(text);
    expect(() => gsm7Septets('م')).toThrow('not a GSM 03.38 character');
  });

  it('packs septets 8 into 7 octets, with fill bits after a UDH', () => {
    // The classic example: "hellohello" packs to E8 32 9B FD 46 97 D9 EC 37.
    const septets = gsm7Septets('hellohello');
    expect(packSeptets(septets).toString('hex')).toBe('e8329bfd4697d9ec37');
    for (const fill of [0, 1]) expect(unpackSeptets(packSeptets(septets, fill), septets.length, fill)).toEqual(septets);
  });
});
