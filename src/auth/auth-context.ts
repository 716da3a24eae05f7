import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { ApiKeyCaller } from '../accounts/api-key-auth.service';

/** Who is calling: set by AuthenticationGuard from the X-API-Key header. */
export type AuthContext = ApiKeyCaller;

export type AuthedRequest = Request & { auth?: AuthContext | null; isAdmin?: boolean; requestId?: string };

/** `@CurrentAuth() auth: AuthContext` in a controller method. */
export const CurrentAuth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.auth) throw new Error('CurrentAuth used on a route without API-key authentication');
  return req.auth;
});
