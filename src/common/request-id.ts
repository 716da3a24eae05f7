import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// Per-process random prefix + counter: unique across replicas without a random draw per request.
const PROCESS_TAG = randomBytes(4).readUInt32BE(0).toString(36).padStart(7, '0');
let counter = 0;

/** `msgreq_<epoch ms>_<process tag><counter>` (base36): sortable by time, unique, cheap. */
export function newRequestId(): string {
  counter = (counter + 1) % 2_176_782_336; // 36^6
  return `msgreq_${Date.now()}_${PROCESS_TAG}${counter.toString(36).padStart(6, '0')}`;
}

export type RequestWithId = Request & { id?: string; requestId?: string };

/** First middleware: every response, errors and unknown routes included, carries the id. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const id = newRequestId();
  (req as RequestWithId).requestId = id;
  (req as RequestWithId).id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}

export function requestIdOf(req: unknown): string {
  const r = req as RequestWithId | undefined;
  return r?.requestId ?? newRequestId();
}
