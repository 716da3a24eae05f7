import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Security headers for a JSON API (helmet). API answers get the strictest CSP (`default-src 'none'`:
 * a JSON or media response never needs to load anything, and a stored file cannot run as a page);
 * the Swagger UI at /docs gets helmet's default policy, which allows its same-origin scripts and
 * inline styles, minus `upgrade-insecure-requests` so the UI also loads over plain-HTTP development.
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
  return (req, res, next) => (req.path === '/docs' || req.path.startsWith('/docs/') ? docs : api)(req, res, next);
}
