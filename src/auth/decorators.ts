import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Permission } from '../accounts/permissions';

export const PUBLIC_KEY = 'auth:public';
export const ADMIN_KEY = 'auth:admin';
export const PERMISSIONS_KEY = 'auth:permissions';
export const OWNER_ONLY_KEY = 'auth:owner';
export const TEST_MODE_ONLY_KEY = 'auth:test-mode';
export const VERIFIED_PHONE_KEY = 'auth:verified-phone';
export const THROTTLE_PER_IP_KEY = 'throttle:per-ip';

/** No authentication (health, docs, inbound provider hooks that authenticate themselves). */
export const Public = () => applyDecorators(SetMetadata(PUBLIC_KEY, true), SkipThrottle());

/**
 * Counted per client IP against PUBLIC_THROTTLE_LIMIT (the `ip` throttler): routes without an API
 * key that an attacker can hammer (admin token guesses, provider hooks, media previews).
 */
export const ThrottlePerIp = () => SetMetadata(THROTTLE_PER_IP_KEY, true);

/** Operator API: `Authorization: Bearer <ADMIN_TOKEN>`; 401 for everything when ADMIN_TOKEN is unset. */
export const AdminOnly = () =>
  applyDecorators(SetMetadata(ADMIN_KEY, true), SkipThrottle(), ThrottlePerIp(), ApiBearerAuth('admin'));

/** The API key must carry every listed permission (an owner key has all). */
export const RequirePermissions = (...permissions: Permission[]) =>
  applyDecorators(SetMetadata(PERMISSIONS_KEY, permissions), ApiSecurity('apiKey'));

/** Only an owner key may call this route (e.g. SMS sender requests, webhook settings). */
export const OwnerOnly = () => applyDecorators(SetMetadata(OWNER_ONLY_KEY, true), ApiSecurity('apiKey'));

/**
 * Only a test key (`msk_test_...`) may call this route: test-mode controls act on the account's test
 * data alone (403 FORBIDDEN for a live key). Not an access policy by itself: pair it with one.
 */
export const TestModeOnly = () => applyDecorators(SetMetadata(TEST_MODE_ONLY_KEY, true), ApiSecurity('apiKey'));

/** Routes that create things need a verified account phone (403 FORBIDDEN otherwise). */
export const RequireVerifiedPhone = () => SetMetadata(VERIFIED_PHONE_KEY, true);
