import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { NextFunction, Request, Response, Router } from 'express';
import { ApiError } from '../common/errors';

export const CONSOLE_PATH = '/console';

/**
 * Where `vite build` puts the console: `<project>/dist/console`. The project root is the nearest
 * folder with a package.json, so this holds from `src/` (tests, ts-node) and from `dist/src/` (npm
 * start, the Docker image) alike.
 */
export function defaultConsoleDir(from = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'console');
}

/**
 * The developer console at /console: hashed assets cached for a year, everything else that is not a
 * file is a client-side route and gets index.html (never cached, so a new build is picked up at once).
 * Without a build, /console answers the 404 envelope saying how to build it.
 */
export function consoleRouter(dir = defaultConsoleDir()): Router {
  const router = Router();
  const index = join(dir, 'index.html');
  router.use(
    '/assets',
    express.static(join(dir, 'assets'), {
      index: false,
      fallthrough: false,
      immutable: true,
      maxAge: '365d',
    }),
    // fallthrough:false turns a missing asset into an error: answer it as the 404 envelope.
    (err: unknown, _req: Request, _res: Response, next: NextFunction) =>
      next(isNotFound(err) ? ApiError.notFound('Console asset') : err),
  );
  // Unhashed files of the build (the icon): revalidated on every use.
  router.use(express.static(dir, { index: false, redirect: false, maxAge: 0 }));
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next(ApiError.notFound('Route'));
    if (!existsSync(index)) return next(ApiError.notFound('Console (not built: run `npm run build`)'));
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (err) => err && next(err));
  });
  return router;
}

function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { status?: number }).status === 404;
}
