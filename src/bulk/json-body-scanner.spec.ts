import { JsonBodyScanner, ScanError, ScanLimits, ValueTooLargeError } from './json-body-scanner';

function scanner(limits?: ScanLimits) {
  const elements: unknown[] = [];
  const fields: Record<string, unknown> = {};
  let isArray = false;
  const sut = new JsonBodyScanner(
    {
      element: (text) => void elements.push(JSON.parse(text)),
      field: (key, text) => (fields[key] = JSON.parse(text)),
      messagesArray: () => (isArray = true),
    },
    limits,
  );
  return { sut, result: () => ({ elements, fields, isArray }) };
}

function scan(
  chunks: (string | Buffer)[],
  limits?: ScanLimits,
): { elements: unknown[]; fields: Record<string, unknown>; isArray: boolean } {
  const { sut, result } = scanner(limits);
  for (const c of chunks) void sut.write(c);
  sut.end();
  return result();
}

/** `bytes` split into chunks of `size` (Buffers: a split may fall inside a UTF-8 sequence). */
function chunked(text: string, size: number): Buffer[] {
  const b = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

describe(JsonBodyScanner.name, () => {
  const body =
    ' { "name" : "a\\"}[,b" , "messages" : [ {"to":"+9665","content":{"text":"x]}\\\\"}} , 5 , "s" , null , [1,{"a":[]}] , {"q":"say \\"hi\\" \\\\\\"]","é":"ü€𝄞"} ] , "messagesPerSecond" : 10 , "other":{"k":[1,2]} } ';
  const expected = {
    elements: [
      { to: '+9665', content: { text: 'x]}\\' } },
      5,
      's',
      null,
      [1, { a: [] }],
      { q: 'say "hi" \\"]', é: 'ü€𝄞' },
    ],
    fields: { name: 'a"}[,b', messagesPerSecond: 10, other: { k: [1, 2] } },
    isArray: true,
  };

  it('finds every element and field, whole or split at any byte', () => {
    expect(scan([body])).toEqual(expected);
    const bytes = Buffer.from(body, 'utf8');
    for (let i = 1; i < bytes.length; i++) expect(scan([bytes.subarray(0, i), bytes.subarray(i)])).toEqual(expected);
    expect(scan(chunked(body, 1))).toEqual(expected);
  });

  it('reports messages that is not an array as a field', () => {
    expect(scan(['{"messages":"x","messagesPerSecond":1}'])).toEqual({
      elements: [],
      fields: { messages: 'x', messagesPerSecond: 1 },
      isArray: false,
    });
    expect(scan(['{}'])).toEqual({ elements: [], fields: {}, isArray: false });
  });

  it.each([
    '',
    '[]',
    '42',
    '{"a":1',
    '{"a":1}x',
    '{"a" 1}',
    '{"messages":[1 2]}',
    '{"messages":[{"a":1}',
    '{a:1}',
    '{"a":1,}',
  ])('rejects %p', (raw) => {
    expect(() => scan([raw])).toThrow(ScanError);
  });

  it('is linear: a multi-MB element fed in 1 KB chunks examines each byte once', () => {
    // The old scanner re-scanned its growing buffer on every chunk: 8 MB in 1 KB chunks is ~32 GB of work.
    const text = 'ab\\"c'.repeat(1_600_000);
    const raw = `{"messagesPerSecond":1,"messages":[{"to":"+966500000000","content":{"text":"${text}"}}]}`;
    const { sut, result } = scanner();
    for (const c of chunked(raw, 1024)) void sut.write(c);
    sut.end();
    expect(sut.examined).toBe(Buffer.byteLength(raw));
    expect((result().elements[0] as { content: { text: string } }).content.text).toBe(text.replaceAll('\\"', '"'));
  });

  describe('limits', () => {
    const limits = { maxValueBytes: 100, maxDepth: 5 };
    const el = (textLen: number) => JSON.stringify({ t: 'x'.repeat(textLen) }); // textLen + 10 bytes

    it('an element of exactly the limit passes; one byte more names its index, as soon as it is passed', () => {
      expect(scan([`{"messages":[${el(90)},${el(90)}]}`], limits).elements).toHaveLength(2);
      const { sut, result } = scanner(limits);
      void sut.write(`{"messages":[${el(5)},{"t":"`);
      void sut.write('x'.repeat(60));
      let err: unknown;
      try {
        void sut.write('x'.repeat(60)); // the element passes 100 bytes here; the body goes on
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValueTooLargeError);
      expect(err).toMatchObject({ message: 'messages[1] is larger than 100 bytes', element: true });
      expect(result().elements).toHaveLength(1);
    });

    it('caps keys and other top-level values too (not an element)', () => {
      expect(() => scan([`{"name":"${'n'.repeat(200)}","messages":[]}`], limits)).toThrow(
        expect.objectContaining({ element: false, message: 'The value of "name" is larger than 100 bytes' }),
      );
      expect(() => scan([`{"${'k'.repeat(200)}":1}`], limits)).toThrow(ValueTooLargeError);
    });

    it('counts depth from the body object: an element may nest 3 more levels under a limit of 5', () => {
      expect(scan(['{"messages":[{"a":[{"b":1}]}],"x":[[[[]]]]}'], limits).elements).toEqual([{ a: [{ b: 1 }] }]);
      expect(() => scan(['{"messages":[{"a":[{"b":[]}]}]}'], limits)).toThrow(
        new ScanError('The body is nested deeper than 5 levels'),
      );
      expect(() => scan(['{"x":[[[[[]]]]]}'], limits)).toThrow(ScanError);
      expect(() => scan([`{"messages":[${'['.repeat(100_000)}`], limits)).toThrow(ScanError);
    });
  });
});
