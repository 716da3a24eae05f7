import { isPublicAddress, parseTarget, TargetRules } from './target-rules';

const strict: TargetRules = { allowInsecure: false, allowedPorts: [443] };
const insecure: TargetRules = { allowInsecure: true, allowedPorts: [443] };
const reason = (raw: unknown, rules = strict) => {
  const r = parseTarget(raw, rules);
  return r.ok ? null : r.reason;
};

describe('isPublicAddress (ipaddr.js ranges: only unicast passes)', () => {
  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
  ])('%s is public', (a) => {
    expect(isPublicAddress(a)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '192.0.0.1',
    '198.18.0.1',
    '192.88.99.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc00::1',
    'ff02::1',
    'fec0::1',
    '100::1',
    '2001::1',
    '2001:db8::1',
    '2002:7f00:1::',
    '64:ff9b::a00:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::7f00:1',
    '4000::1',
    'not-an-ip',
    '',
    '127.1',
  ])('%s is refused', (a) => {
    expect(isPublicAddress(a)).toBe(false);
  });
});

describe('parseTarget', () => {
  it.each([
    'https://files.example.com/a.pdf',
    'https://FILES.example.com/a.pdf',
    'https://files.example.com:443/a.pdf',
    'https://files.example.com',
    'https://8.8.8.8/x?y=1#z',
    'https://[2606:4700::1]/x',
    'https://bücher.de/ä.pdf',
    'https://files.example.com/a b%20c.pdf'.replace(' ', '%20'),
  ])('%s is accepted', (raw) => {
    expect(reason(raw)).toBeNull();
  });

  it.each([
    ['https:///8.8.8.8/x', 'serialisation'],
    ['https:\\\\8.8.8.8\\x', 'serialisation'],
    ['https://8.8.8.8\t/x', 'serialisation'],
    ['https://@8.8.8.8/x', 'serialisation'],
    ['https://134744072/x', 'serialisation'],
    ['https://0x8.8.8.8/x', 'serialisation'],
    ['https://user:pw@files.example.com/x', 'credentials'],
    ['https://user@files.example.com/x', 'credentials'],
    ['http://files.example.com/x', 'scheme'],
    ['ftp://files.example.com/x', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['https://files.example.com:8443/x', 'port'],
    ['https://files.example.com:80/x', 'port'],
    ['not a url', 'absolute'],
    ['', 'URL'],
    [42, 'URL'],
    [`https://x.example/${'a'.repeat(2048)}`, 'URL'],
  ])('%s is refused (%s)', (raw, why) => {
    expect(reason(raw)).toContain(why === 'serialisation' ? 'normalised' : why);
  });

  it('WEBHOOK_ALLOWED_PORTS replaces the default port list', () => {
    expect(reason('https://files.example.com:8443/x', { allowInsecure: false, allowedPorts: [443, 8443] })).toBeNull();
    expect(reason('https://files.example.com/x', { allowInsecure: false, allowedPorts: [8443] })).toContain('port 443');
  });

  it('insecure mode (development, tests) allows http and any port, never credentials or a mismatched serialisation', () => {
    expect(reason('http://127.0.0.1:9/x', insecure)).toBeNull();
    expect(reason('http://user:pw@127.0.0.1:9/x', insecure)).toBe('credentials');
    expect(reason('http:///127.0.0.1:9/x', insecure)).toContain('normalised');
    expect(reason('ftp://127.0.0.1/x', insecure)).toContain('scheme');
  });
});
