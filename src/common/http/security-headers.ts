import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Security headers (helmet), one policy per kind of answer:
 * - API answers get the strictest CSP (`default-src 'none'`: a JSON or media response never needs to
 *   load anything, and a stored file cannot run as a page);
 * - the Swagger UI at /docs gets helmet's default policy, which allows its same-origin scripts and
 *   inline styles, minus `upgrade-insecure-requests` so the UI also loads over plain-HTTP development;
 * - the developer console at /console loads only its own files: scripts and styles from 'self' with no
 *   inline code at all, API calls to the same origin, images from 'self' (template header previews).
 */
export function securityHeaders(): RequestHandler {
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
  return (req, res, next) => {
    if (isUnder(req.path, '/docs')) return docs(req, res, next);
    if (isUnder(req.path, '/console')) return consolePolicy(req, res, next);
    return api(req, res, next);
  };
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
