import { matchKeyword } from './keyword-matcher';

describe(matchKeyword.name, () => {
  it.each([
    ['stop', 'STOP', 'opt_out'],
    [' Unsubscribe. ', 'UNSUBSCRIBE', 'opt_out'],
    ['start', 'START', 'opt_in'],
    ['Help?', 'HELP', 'help'],
    ['إِلْغَاءْ', 'إلغاء', 'opt_out'],
    ['ايقـــاف', 'ايقاف', 'opt_out'],
    ['تَوَقَّفْ', 'توقف', 'opt_out'],
    ['إشتراك', 'اشتراك', 'opt_in'],
    ['مساعده', 'مساعدة', 'help'],
  ])('%j is %s (%s)', (text, word, kind) => {
    expect(matchKeyword(text)).toMatchObject({ word, kind });
  });

  it('matches the whole message only', () => {
    expect(matchKeyword('please stop')).toBeNull();
    expect(matchKeyword('stop it')).toBeNull();
    expect(matchKeyword('')).toBeNull();
    expect(matchKeyword('!!!')).toBeNull();
  });

  it("takes an account's own keywords, normalised the same way", () => {
    const extra = [{ word: 'Basta', kind: 'opt_out' as const, language: 'custom' as const }];
    expect(matchKeyword(' BASTA! ', extra)).toEqual(extra[0]);
    expect(matchKeyword('basta')).toBeNull();
  });
});
