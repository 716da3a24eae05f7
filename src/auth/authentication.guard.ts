import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { ApiKeyAuthService } from '../accounts/api-key-auth.service';
import { safeEqualString } from '../common/constant-time';
import { AuthedRequest } from './auth-context';
import { ADMIN_KEY, PUBLIC_KEY } from './decorators';

/**
 * First guard. Admin routes: checks the bearer token into `req.isAdmin` (AuthorizationGuard refuses).
 * API routes: resolves X-API-Key to `req.auth` but does not refuse yet, so the throttler that runs
 * next can count unauthenticated callers per IP; AuthorizationGuard refuses afterwards.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
    private readonly keys: ApiKeyAuthService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_KEY, targets)) {
      // Refused by AuthorizationGuard, after the per-IP throttler has counted the attempt.
      req.isAdmin = this.isAdminToken(req);
      return true;
    }
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    req.auth = key ? await this.keys.authenticate(key) : null;
    return true;
  }

  private isAdminToken(req: AuthedRequest): boolean {
    const token = this.config.security.adminToken;
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    return !!token && !!given && safeEqualString(given, token);
  }
}
