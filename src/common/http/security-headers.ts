import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

type Header = readonly [name: string, value: string];

/**
 * The helmet middleware of each kind of answer (security headers):
 * - API answers get the strictest CSP (`default-src 'none'`: a JSON or media response never needs to
 *   load anything, and a stored file cannot run as a page);
 * - the Swagger UI at /docs gets helmet's default policy, which allows its same-origin scripts and
 *   inline styles, minus `upgrade-insecure-requests` so the UI also loads over plain-HTTP development;
 * - the developer console at /console loads only its own files: scripts and styles from 'self' with no
 *   inline code at all, API calls to the same origin, images from 'self' (template header previews).
 */
export function helmetPolicies(): { api: RequestHandler; docs: RequestHandler; console: RequestHandler } {
  const api = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' },
  });
  const docs = helmet({
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null, frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' },
  });
  const consolePolicy = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        mediaSrc: ["'self'"],
        connectSrc: ["'self'"],
        manifestSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  return { api, docs, console: consolePolicy };
}

/**
 * Sets the security headers of each kind of answer. The policies are static, so each one's headers are
 * taken from helmet once at start-up and set from that list on every response (helmet's per-request
 * middleware chain cost ~3% of an API read).
 */
export function securityHeaders(): RequestHandler {
  const policies = helmetPolicies();
  const [apiHeaders, docsHeaders, consoleHeaders] = [policies.api, policies.docs, policies.console].map(headersOf);
  return (req, res, next) => {
    const path = req.path;
    const headers = isUnder(path, '/docs') ? docsHeaders : isUnder(path, '/console') ? consoleHeaders : apiHeaders;
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** The headers a helmet middleware sets, by running it once on a recording response. */
export function headersOf(policy: RequestHandler): Header[] {
  const headers: Header[] = [];
  const res = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  let done = false;
  policy({} as Request, res as unknown as Response, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    done = true;
  });
  if (!done) throw new Error('A security header policy did not finish synchronously');
  return headers;
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
