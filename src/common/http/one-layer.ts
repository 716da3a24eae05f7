import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs `handlers` in order as one Express layer: what every request goes through (headers, request
 * id, log, metrics) pays the router's per-layer matching once instead of once per handler.
 */
export function oneLayer(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const handler = handlers[i++];
      if (!handler) return next();
      void handler(req, res, step);
    };
    step();
  };
}
