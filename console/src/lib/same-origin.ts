/**
 * A preview link as a path on this origin: the service builds it from PUBLIC_BASE_URL, which may name
 * another host than the one the console was opened on, and the console's CSP loads images from 'self'.
 */
export function sameOriginPath(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, window.location.origin);
    return u.pathname + u.search;
  } catch {
    return null;
  }
}
