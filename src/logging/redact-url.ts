/**
 * Query parameters whose values are credentials (provider hooks authenticate with `?token=` and
 * `hub.verify_token=`; other clients put keys and signatures in the URL). Names compare
 * case-insensitively after percent-decoding.
 */
export const SECRET_QUERY_PARAMS: ReadonlySet<string> = new Set([
  'token',
  'hub.verify_token',
  'key',
  'api_key',
  'apikey',
  'secret',
  'signature',
  'sig',
  'access_token',
  'refresh_token',
  'client_secret',
  'password',
]);

export const REDACTED = '[REDACTED]';

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * The URL with the value of every secret-bearing query parameter replaced by `[REDACTED]`; the path
 * and every other parameter stay byte for byte, so logs still show what was called.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET_QUERY_PARAMS.has(decodedName(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${query.join('&')}`;
}
