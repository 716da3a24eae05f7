import { AnchorHTMLAttributes, MouseEvent, useSyncExternalStore } from 'react';

// A small history router: the console has a dozen fixed routes, which does not justify a routing
// library. The server answers every /console/* path with index.html, so deep links and reloads work.
export const BASE = '/console';
const NAVIGATE = 'console:navigate';

function subscribe(l: () => void): () => void {
  window.addEventListener('popstate', l);
  window.addEventListener(NAVIGATE, l);
  return () => {
    window.removeEventListener('popstate', l);
    window.removeEventListener(NAVIGATE, l);
  };
}

/** The path inside the console: `/`, `/messages`, `/bulk/bjob_1`... */
export function currentPath(): string {
  const p = window.location.pathname.startsWith(BASE)
    ? window.location.pathname.slice(BASE.length)
    : window.location.pathname;
  return p === '' ? '/' : p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

/** The query string as a URLSearchParams (filters and cursors live in the URL, so they survive reload). */
export function useQuery(): URLSearchParams {
  const search = useSyncExternalStore(subscribe, () => window.location.search);
  return new URLSearchParams(search);
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = BASE + (to === '/' ? '/' : to);
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATE));
  // Move focus to the new page's heading, as a page load would for screen reader users.
  window.requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

/** Matches `/bulk/:id` against a path; returns the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i += 1) {
    if (a[i].startsWith(':')) params[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return null;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={BASE + to} onClick={handle} {...rest} />;
}
