import { normalizeKeywordText } from './keyword-text';

describe(normalizeKeywordText.name, () => {
  it.each([
    ['  STOP ', 'stop'],
    ['Stop.', 'stop'],
    ['ＳＴＯＰ', 'stop'],
    ['un\u200Bsubscribe', 'unsubscribe'],
    ['stop   all', 'stop all'],
  ])('Latin: %j -> %j', (input, out) => expect(normalizeKeywordText(input)).toBe(out));

  it('drops harakat, shadda, sukun and tatweel', () => {
    expect(normalizeKeywordText('إِيقَاف')).toBe('ايقاف');
    expect(normalizeKeywordText('إيقـــاف')).toBe('ايقاف');
    expect(normalizeKeywordText('تَوَقَّفْ')).toBe('توقف');
    expect(normalizeKeywordText('إلغاءٌ')).toBe('الغاء');
  });

  it('folds alef and hamza forms, alef maksura and taa marbuta', () => {
    expect(normalizeKeywordText('أإآٱا')).toBe('ااااا');
    expect(normalizeKeywordText('ؤ ئ ى')).toBe('و ي ي');
    expect(normalizeKeywordText('مساعدة')).toBe('مساعده');
    expect(normalizeKeywordText('الغاء')).toBe(normalizeKeywordText('إلغاء'));
  });

  it('turns Arabic-Indic and Eastern Arabic-Indic digits into ASCII digits', () => {
    expect(normalizeKeywordText('٠١٢٣٤٥٦٧٨٩')).toBe('0123456789');
    expect(normalizeKeywordText('۰۱۲۳۴۵۶۷۸۹')).toBe('0123456789');
  });

  it('trims punctuation and direction marks at either end, keeps inner words', () => {
    expect(normalizeKeywordText('\u200Fتوقف!')).toBe('توقف');
    expect(normalizeKeywordText('؟اشتراك؟')).toBe('اشتراك');
    expect(normalizeKeywordText('please stop')).toBe('please stop');
  });
});
