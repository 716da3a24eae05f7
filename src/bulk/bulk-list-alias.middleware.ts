import type { NextFunction, Request, Response } from 'express';

export const BULK_LIST_ALIAS = '__list';

/**
 * GET /api/v2/messages/bulk would otherwise be taken by the messaging module's
 * GET /api/v2/messages/:id (registered first; Express 5 paths cannot exclude a value). This
 * middleware runs before every route and points the list request at the bulk controller's alias.
 */
export function bulkListAlias(req: Request, _res: Response, next: NextFunction): void {
  const q = req.url.indexOf('?');
  const path = q === -1 ? req.url : req.url.slice(0, q);
  if (/^\/api\/v2\/messages\/bulk\/?$/.test(path)) req.url = `/api/v2/messages/bulk/${BULK_LIST_ALIAS}${q === -1 ? '' : req.url.slice(q)}`;
  next();
}
