import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** `msgreq_<epoch ms>_<10 base36 chars>`: sortable by time, unique enough to grep logs by. */
export function newRequestId(): string {
  const suffix = BigInt('0x' + randomBytes(7).toString('hex')).toString(36).padStart(10, '0').slice(-10);
  return `msgreq_${Date.now()}_${suffix}`;
}

export type RequestWithId = Request & { id?: string; requestId?: string };

/** First middleware: every response, errors and unknown routes included, carries the id. */
export function requestIdMiddleware(req: RequestWithId, res: Response, next: NextFunction): void {
  const id = newRequestId();
  req.requestId = id;
  req.id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}

export function requestIdOf(req: unknown): string {
  const r = req as RequestWithId | undefined;
  return r?.requestId ?? newRequestId();
}
