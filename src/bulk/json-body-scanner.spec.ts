import { JsonBodyScanner, ScanError } from './json-body-scanner';

function scan(chunks: string[]): { elements: unknown[]; fields: Record<string, unknown>; isArray: boolean } {
  const elements: unknown[] = [];
  const fields: Record<string, unknown> = {};
  let isArray = false;
  const sut = new JsonBodyScanner({
    element: (text) => void elements.push(JSON.parse(text)),
    field: (key, text) => (fields[key] = JSON.parse(text)),
    messagesArray: () => (isArray = true),
  });
  for (const c of chunks) void sut.write(c);
  sut.end();
  return { elements, fields, isArray };
}

describe(JsonBodyScanner.name, () => {
  const body = ' { "name" : "a\\"}[,b" , "messages" : [ {"to":"+9665","content":{"text":"x]}\\\\"}} , 5 , "s" , null , [1,{"a":[]}] , {"q":"say \\"hi\\" \\\\\\"]"} ] , "messagesPerSecond" : 10 , "other":{"k":[1,2]} } ';
  const expected = {
    elements: [{ to: '+9665', content: { text: 'x]}\\' } }, 5, 's', null, [1, { a: [] }], { q: 'say "hi" \\"]' }],
    fields: { name: 'a"}[,b', messagesPerSecond: 10, other: { k: [1, 2] } },
    isArray: true,
  };

  it('finds every element and field, whole or split at any position', () => {
    expect(scan([body])).toEqual(expected);
    for (let i = 1; i < body.length; i++) expect(scan([body.slice(0, i), body.slice(i)])).toEqual(expected);
    expect(scan(body.split(''))).toEqual(expected);
  });

  it('reports messages that is not an array as a field', () => {
    expect(scan(['{"messages":"x","messagesPerSecond":1}'])).toEqual({ elements: [], fields: { messages: 'x', messagesPerSecond: 1 }, isArray: false });
    expect(scan(['{}'])).toEqual({ elements: [], fields: {}, isArray: false });
  });

  it.each(['', '[]', '42', '{"a":1', '{"a":1}x', '{"a" 1}', '{"messages":[1 2]}', '{"messages":[{"a":1}', '{a:1}'])('rejects %p', (raw) => {
    expect(() => scan([raw])).toThrow(ScanError);
  });
});
