import { ApiError } from '../common/errors';
import { decodeList, encodeList, intersect, outside, readList, showList } from './geo-permission-rules';

describe('geo permission rules', () => {
  it('stores, reads back and shows lists: every country, none, some', () => {
    for (const list of ['*', [], ['AE', 'SA']] as const) expect(decodeList(encodeList(list))).toEqual(list);
    expect([encodeList('*'), encodeList([]), encodeList(['AE', 'SA'])]).toEqual(['*', '', 'AE,SA']);
    expect([showList('*'), showList([])]).toEqual([['*'], []]);
  });

  it('reads a request list: any case, sorted, each once; "*" only alone; unknown codes named', () => {
    expect(readList('f', ['sa', 'AE', 'SA'])).toEqual(['AE', 'SA']);
    expect(readList('f', ['*'])).toBe('*');
    expect(() => readList('f', ['SA', '*'])).toThrow('f: "*" (every country) must be the only entry');
    expect(() => readList('f', ['XX', 'SA', 'QQ'])).toThrow(
      new ApiError('VALIDATION_ERROR', 'f: XX, QQ are not ISO 3166-1 country codes'),
    );
  });

  it('compares with the ceiling', () => {
    expect(outside(['SA', 'US'], ['AE', 'SA'])).toEqual(['US']);
    expect(outside('*', ['SA'])).toEqual(['*']);
    expect(outside('*', '*')).toEqual([]);
    expect(intersect(['SA', 'US'], ['AE', 'SA'])).toEqual(['SA']);
    expect(intersect('*', ['SA'])).toEqual(['SA']);
    expect(intersect(['US'], '*')).toEqual(['US']);
  });
});
