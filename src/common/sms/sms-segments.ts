/**
 * How carriers cut an SMS into parts (3GPP TS 23.038 / 23.040). A text whose every character is in
 * the GSM 03.38 default alphabet (basic table, or the extension table at two septets each: an ESC
 * and the character) is sent as GSM-7: 160 septets in one part, 153 per part when concatenated
 * (a 6-octet UDH takes 7 septets). Anything else is UCS-2: 70 UTF-16 code units in one part, 67 per
 * part; a character outside the BMP is a surrogate pair and counts two. A part never ends inside an
 * escape pair or a surrogate pair. Checked against the `sms-segments-calculator` and `split-sms`
 * packages on the examples of the unit spec; kept here because the SMPP adapter needs the septet
 * values and the parts themselves, and because those split by grapheme where carriers do not.
 */
export const SMS_ENCODINGS = ['gsm7', 'ucs2'] as const;
export type SmsEncoding = (typeof SMS_ENCODINGS)[number];

export interface SmsSplit {
  encoding: SmsEncoding;
  /** The parts' texts, in order; one part when the text fits in a single SMS. */
  parts: string[];
}

// GSM 03.38 basic table: the index is the septet value (0x1B is the escape to the extension table).
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENSION: Record<string, number> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};
const BASIC_CODE = new Map<string, number>(
  [...BASIC].map((ch, i) => [ch, i] as [string, number]).filter(([ch]) => ch !== '\x1b'),
);
const EXTENSION_CHAR = new Map<number, string>(Object.entries(EXTENSION).map(([ch, code]) => [code, ch]));

export const SMS_LIMITS = {
  gsm7: { single: 160, perPart: 153 },
  ucs2: { single: 70, perPart: 67 },
} as const;

/** Units one character takes: septets for GSM-7, UTF-16 code units for UCS-2. */
function gsmWidth(ch: string): number | null {
  if (BASIC_CODE.has(ch)) return 1;
  if (ch in EXTENSION) return 2;
  return null;
}

export function smsEncodingOf(text: string): SmsEncoding {
  for (const ch of text) if (gsmWidth(ch) === null) return 'ucs2';
  return 'gsm7';
}

/** The encoding and the parts of a text, as a carrier would send it. */
export function splitSms(text: string): SmsSplit {
  const encoding = smsEncodingOf(text);
  const width = (ch: string): number => (encoding === 'gsm7' ? (gsmWidth(ch) as number) : ch.length);
  const chars = [...text]; // code points: a surrogate pair stays whole
  const total = chars.reduce((s, ch) => s + width(ch), 0);
  const limits = SMS_LIMITS[encoding];
  if (total <= limits.single) return { encoding, parts: [text] };
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const ch of chars) {
    const w = width(ch);
    if (used + w > limits.perPart) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += ch;
    used += w;
  }
  parts.push(current);
  return { encoding, parts };
}

/** How many parts a text becomes. */
export function smsSegments(text: string): { encoding: SmsEncoding; segments: number } {
  const split = splitSms(text);
  return { encoding: split.encoding, segments: split.parts.length };
}

/** GSM-7 septet values of a text (one octet each, unpacked; extension characters as ESC + code). Throws on a character outside GSM 03.38. */
export function gsm7Septets(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const basic = BASIC_CODE.get(ch);
    if (basic !== undefined) out.push(basic);
    else if (ch in EXTENSION) out.push(0x1b, EXTENSION[ch]);
    else throw new Error(`not a GSM 03.38 character: U+${(ch.codePointAt(0) ?? 0).toString(16)}`);
  }
  return out;
}

/** Text of GSM-7 septet values (the inverse of gsm7Septets). */
export function gsm7Text(septets: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < septets.length; i++) {
    const s = septets[i];
    if (s === 0x1b && i + 1 < septets.length) out += EXTENSION_CHAR.get(septets[++i]) ?? ' ';
    else out += BASIC[s] ?? ' ';
  }
  return out;
}

/**
 * Packs septets 8 into 7 octets (3GPP TS 23.038 6.1.2.1.1). `fillBits` skips bits first, so the
 * text starts on a septet boundary after a UDH (1 fill bit after a 6-octet header).
 */
export function packSeptets(septets: number[], fillBits = 0): Buffer {
  const bits = fillBits + septets.length * 7;
  const out = Buffer.alloc(Math.ceil(bits / 8));
  let pos = fillBits;
  for (const s of septets) {
    for (let b = 0; b < 7; b++, pos++) if ((s >> b) & 1) out[pos >> 3] |= 1 << (pos & 7);
  }
  return out;
}

/** Unpacks `count` septets packed by packSeptets. */
export function unpackSeptets(packed: Buffer, count: number, fillBits = 0): number[] {
  const out: number[] = [];
  let pos = fillBits;
  for (let i = 0; i < count; i++) {
    let s = 0;
    for (let b = 0; b < 7; b++, pos++) if ((packed[pos >> 3] >> (pos & 7)) & 1) s |= 1 << b;
    out.push(s);
  }
  return out;
}
