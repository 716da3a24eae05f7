import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** What the deployment allows: WEBHOOK_ALLOW_INSECURE and WEBHOOK_ALLOWED_PORTS. */
export interface TargetRules {
  /**
   * Development and tests only: http, any port and any address class (loopback, private) are
   * allowed. Credentials, an empty host and a serialisation mismatch are refused in every mode.
   */
  allowInsecure: boolean;
  /** Ports allowed otherwise (443 unless WEBHOOK_ALLOWED_PORTS says more). */
  allowedPorts: readonly number[];
}

export const MAX_URL_LENGTH = 2048;

// Only 2000::/3 is allocated as global unicast; ipaddr.js classes the deprecated IPv4-compatible
// form (::a.b.c.d) and unassigned space as plain "unicast".
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True when `address` (an IP literal) is a public unicast address: ipaddr.js's range must be
 * `unicast` (this refuses loopback, private, link-local/metadata, CGNAT, site-local fec0::/10,
 * discard 100::/64, Teredo 2001::/32, 6to4, NAT64, documentation, multicast and reserved space).
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (ip.range() !== 'unicast') return false;
  return ip.kind() === 'ipv4' || (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/** The address rule of the deployment: any address when insecure targets are allowed. */
export function addressAllowed(address: string, rules: TargetRules): boolean {
  return rules.allowInsecure || isPublicAddress(address);
}

/**
 * Parses a user-supplied URL once (WHATWG) and applies every rule that needs no DNS. Returns the
 * parsed URL, or the reason for the logs (callers show one text for every refusal).
 */
export function parseTarget(raw: unknown, rules: TargetRules): { ok: true; url: URL } | { ok: false; reason: string } {
  if (typeof raw !== 'string' || raw === '' || raw.length > MAX_URL_LENGTH)
    return { ok: false, reason: 'not a URL of at most 2048 characters' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(rules.allowInsecure && url.protocol === 'http:'))
    return { ok: false, reason: `scheme ${url.protocol}` };
  if (url.username || url.password) return { ok: false, reason: 'credentials' };
  if (!url.hostname) return { ok: false, reason: 'empty host' };
  if (!sameSerialisation(raw, url)) return { ok: false, reason: 'the URL does not read the same once normalised' };
  if (!rules.allowInsecure && !rules.allowedPorts.includes(effectivePort(url)))
    return { ok: false, reason: `port ${effectivePort(url)}` };
  return { ok: true, url };
}

export function effectivePort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The host as a socket needs it (IPv6 literal without brackets). */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Other URL parsers (nodemailer's legacy url.parse, provider SDKs) read some strings differently
 * from WHATWG: `https:///8.8.8.8/x` has host 8.8.8.8 for WHATWG and an empty host (localhost) for
 * url.parse. A URL is accepted only when its WHATWG serialisation is the input itself, up to what
 * normalisation legitimately changes: scheme/host case, the default port, an empty path's "/",
 * and percent-encoding. Anything the parser had to repair (slashes, backslashes, whitespace, "@",
 * numeric host shorthands) is refused.
 */
function sameSerialisation(raw: string, url: URL): boolean {
  // WHATWG silently drops tabs/newlines and trims spaces; other parsers do not.
  if (/[\x00-\x20\x7f]/.test(raw)) return false;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#\\]*)(.*)$/s.exec(raw);
  if (!m) return false;
  const [, scheme, authority, rest] = m;
  if (`${scheme.toLowerCase()}:` !== url.protocol) return false;
  const defaultPort = url.protocol === 'https:' ? ':443' : ':80';
  let host = authority.toLowerCase();
  if (host.endsWith(defaultPort)) host = host.slice(0, -defaultPort.length);
  // Internationalised names: compare their ASCII (punycode) form, as WHATWG serialises it.
  if (/[^\x21-\x7e]/.test(host)) host = domainToASCII(host) || '\u0000';
  if (host !== url.host) return false;
  const expected = url.pathname + url.search + url.hash;
  const given = rest === '' ? '/' : rest;
  if (given === expected) return true;
  const decoded = safeDecode(given);
  return decoded !== null && decoded === safeDecode(expected);
}

function safeDecode(s: string): string | null {
  if (/[\x00-\x20\x7f]/.test(s)) return null;
  try {
    return decodeURI(s);
  } catch {
    return null;
  }
}
