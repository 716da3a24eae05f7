import { stringify } from 'csv-stringify/sync';
import { CSV_OPTIONS, neutraliseFormula } from './csv-cells';

describe('neutraliseFormula', () => {
  it.each([
    '=HYPERLINK("http://x.test","click")',
    '+1+cmd|calc',
    '-2+3',
    '@SUM(A1)',
    '\t=1',
    '\r=1',
    '\uFF1D1+1',
    '\uFF0B1',
    '\uFF0D1',
    '\uFF20A1',
    '+966 50 123 4567',
    '+',
  ])('prefixes %j with a quote', (value) => {
    expect(neutraliseFormula(value)).toBe(`'${value}`);
  });

  it.each(['+966501234567', '+1', 'hello', '0501234567', 'a=b', ' =1', '', 'مرحبا'])('leaves %j as it is', (value) => {
    expect(neutraliseFormula(value)).toBe(value);
  });

  it('the CSV options quote after neutralising, with CRLF records and empty cells for null', () => {
    const csv = stringify(
      [
        [0, '=1,2', null],
        [1, 'say "hi"\nbye', '+966501234567'],
      ],
      CSV_OPTIONS,
    );
    expect(csv).toBe(`0,"'=1,2",\r\n1,"say ""hi""\nbye",+966501234567\r\n`);
  });
});
