import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { AuthedRequest } from './auth-context';
import {
  ADMIN_KEY,
  OWNER_ONLY_KEY,
  PERMISSIONS_KEY,
  PUBLIC_KEY,
  TEST_MODE_ONLY_KEY,
  VERIFIED_PHONE_KEY,
} from './decorators';
import type { Permission } from '../accounts/permissions';

/**
 * Last guard: 401 without a valid key, 403 for a live key on a test-mode route, a missing permission,
 * a member key on an owner-only route, or an unverified phone on a creating route. A route that declares no access policy at all
 * is refused, so forgetting a decorator can never open a route.
 */
@Injectable()
export class AuthorizationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_KEY, targets)) {
      if (req.isAdmin) return true;
      throw new ApiError(
        'UNAUTHORIZED',
        this.config.security.adminToken
          ? 'Admin token missing or invalid'
          : 'Admin API is disabled (ADMIN_TOKEN is not set)',
      );
    }
    const auth = req.auth;
    if (!auth) throw new ApiError('UNAUTHORIZED', 'API key missing or invalid');

    const required = this.reflector.getAllAndOverride<Permission[] | undefined>(PERMISSIONS_KEY, targets);
    const ownerOnly = this.reflector.getAllAndOverride<boolean>(OWNER_ONLY_KEY, targets) ?? false;
    if (required === undefined && !ownerOnly) {
      throw new ApiError('FORBIDDEN', 'This route has no access policy');
    }
    // The mode first: a live key learns that it needs a test key, whatever its role.
    if (this.reflector.getAllAndOverride<boolean>(TEST_MODE_ONLY_KEY, targets) && auth.mode !== 'test') {
      throw new ApiError('FORBIDDEN', 'Test-mode controls need a test key (msk_test_...)');
    }
    if (ownerOnly && auth.role !== 'owner') {
      throw new ApiError('FORBIDDEN', 'Only the account owner key may call this route');
    }
    if (auth.role !== 'owner') {
      const missing = (required ?? []).filter((p) => !auth.permissions.includes(p));
      if (missing.length) throw new ApiError('FORBIDDEN', `API key lacks permission: ${missing.join(', ')}`);
    }
    if (this.reflector.getAllAndOverride<boolean>(VERIFIED_PHONE_KEY, targets) && !auth.account.phoneVerified) {
      throw new ApiError('FORBIDDEN', 'The account phone number is not verified');
    }
    return true;
  }
}
