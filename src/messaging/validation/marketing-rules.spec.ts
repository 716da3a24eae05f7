import { hasOptOut, hostAllowed, linkHosts, withFooter } from './marketing-rules';

const footer = { ar: 'لإيقاف الرسائل أرسل إيقاف', en: 'Reply STOP to opt out' };

describe('marketing rules', () => {
  it('finds opt-out instructions: keywords as words, footers, Arabic in any alef form with diacritics', () => {
    expect(hasOptOut('Sale today! Text STOP to 1234', footer)).toBe(true);
    expect(hasOptOut('sale. stop?', footer)).toBe(true);
    expect(hasOptOut('Unsubscribe: reply', footer)).toBe(true);
    expect(hasOptOut('تخفيضات! للإلغاء أرسل إِيقاف', footer)).toBe(true);
    expect(hasOptOut('تخفيضات اليوم', footer)).toBe(false);
    expect(hasOptOut('Nonstop deals, bus stops', footer)).toBe(false);
    expect(hasOptOut(`Deals\n${footer.en}`, footer)).toBe(true);
  });

  it('appends the Arabic footer to Arabic text and the English one otherwise', () => {
    expect(withFooter('Sale', footer)).toBe(`Sale\n${footer.en}`);
    expect(withFooter('تخفيضات', footer)).toBe(`تخفيضات\n${footer.ar}`);
    expect(hasOptOut(withFooter('Sale', footer), footer)).toBe(true);
  });

  it('lists the hosts of links, with or without a scheme, and ignores words with dots', () => {
    expect(linkHosts('Go https://Shop.Example.com/x and bit.ly/abc or www.foo.net, see Mr.Smith e.g. v1.2')).toEqual([
      'shop.example.com',
      'bit.ly',
      'www.foo.net',
    ]);
    expect(linkHosts('visit example.sa today')).toEqual(['example.sa']);
  });

  it('allows a registered host and its subdomains only', () => {
    expect(hostAllowed('example.com', ['example.com'])).toBe(true);
    expect(hostAllowed('shop.example.com', ['example.com'])).toBe(true);
    expect(hostAllowed('badexample.com', ['example.com'])).toBe(false);
    expect(hostAllowed('example.com.evil.io', ['example.com'])).toBe(false);
  });
});
