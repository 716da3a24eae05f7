import { CsvFirstColumn } from './csv-lines';

function readAll(chunks: (string | Buffer)[], maxChars?: number) {
  const sut = new CsvFirstColumn(maxChars);
  return [...chunks.flatMap((c) => sut.push(c)), ...sut.end()];
}

describe(CsvFirstColumn.name, () => {
  it('gives each non-blank line its number and first column (LF, CRLF, quotes, no final newline)', () => {
    expect(readAll(['\uFEFFnumber\r\n+966501234567\r\n\n "966501234568",x\n0501234569;y\n 0501234570 '])).toEqual([
      { line: 1, value: 'number' },
      { line: 2, value: '+966501234567' },
      { line: 4, value: '966501234568' },
      { line: 5, value: '0501234569' },
      { line: 6, value: '0501234570' },
    ]);
  });

  it('joins lines and UTF-8 characters split across chunks', () => {
    const bytes = Buffer.from('+96650\u0661\n+966501234567\n', 'utf8');
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    expect(readAll(chunks)).toEqual([
      { line: 1, value: '+96650\u0661' },
      { line: 2, value: '+966501234567' },
    ]);
  });

  it('does not buffer an overlong line: it comes out as null and the next line is read', () => {
    expect(readAll(['+9665', '9'.repeat(40), '9'.repeat(40), '\n+966501234567\n', 'x'.repeat(100)], 32)).toEqual([
      { line: 1, value: null },
      { line: 2, value: '+966501234567' },
      { line: 3, value: null },
    ]);
  });
});
