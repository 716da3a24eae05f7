import { Readable } from 'node:stream';
import { readSuppressionCsv } from './suppression-csv-reader';

const limits = { region: 'SA', maxRows: 3, maxProblems: 2 };
const read = (text: string, chunks = 1, maxRows = limits.maxRows) => {
  const size = Math.ceil(text.length / chunks);
  const parts = Array.from({ length: chunks }, (_, i) => text.slice(i * size, (i + 1) * size));
  return readSuppressionCsv(Readable.from(parts), { ...limits, maxRows });
};

describe(readSuppressionCsv.name, () => {
  it('reads rows normalised like `to`, with defaults, a BOM, CRLF, quotes and the export columns ignored', async () => {
    const csv =
      '\uFEFFRecipient,channel,Scope,reason,source,createdAt\r\n' +
      '0501234567,,,api,key_1,2026-01-01T00:00:00.000Z\r\n\r\n' +
      '"Someone@Example.com",EMAIL,all,,,\r\n';
    expect(await read(csv, 7)).toEqual({
      kind: 'ok',
      rows: 2,
      entries: [
        { recipient: '+966501234567', channel: 'all', scope: 'marketing' },
        { recipient: 'someone@example.com', channel: 'email', scope: 'all' },
      ],
    });
  });

  it('names the line of every bad row (the header is line 1), up to the limit of problems', async () => {
    const csv = 'recipient,channel\n+966501234567,all\nnobody,all\n+966501234568,fax\n,all\n';
    expect(await read(csv, 1, 10)).toEqual({
      kind: 'invalid',
      rows: 4,
      stoppedReading: false,
      problems: [
        { line: 3, message: 'recipient must be a phone number (E.164) or an email address' },
        { line: 4, message: expect.stringMatching(/^channel must be one of: /) },
      ],
    });
  });

  it('refuses a missing header, an unknown column, a row of another width and broken CSV', async () => {
    expect(await read('')).toMatchObject({
      kind: 'invalid',
      problems: [{ line: 1, message: 'a header row is required' }],
    });
    expect(await read('phone\n+966501234567\n')).toMatchObject({
      kind: 'invalid',
      stoppedReading: true,
      problems: [{ line: 1, message: expect.stringMatching(/^unknown column "phone"/) }, { line: 1 }],
    });
    expect(await read('recipient\n+966501234567,all\n')).toMatchObject({
      kind: 'invalid',
      problems: [{ line: 2, message: 'the row has 2 fields, the header 1' }],
    });
    expect(await read('recipient\n"+966501234567\n')).toMatchObject({
      kind: 'invalid',
      stoppedReading: true,
      problems: [{ message: expect.stringMatching(/^the file is not valid CSV: /) }],
    });
  });

  it('stops at the first row past the limit', async () => {
    const csv = 'recipient\n' + ['+966501234561', '+966501234562', '+966501234563', '+966501234564'].join('\n');
    expect(await read(csv)).toEqual({ kind: 'tooManyRows' });
    expect(await read(csv.split('\n').slice(0, 4).join('\n'))).toMatchObject({ kind: 'ok', rows: 3 });
  });
});
