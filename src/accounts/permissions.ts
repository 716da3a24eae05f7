/** The spec's permissions. An owner key has all of them. */
export const PERMISSIONS = ['messages:create', 'messages:read', 'api_keys:read'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export type KeyRole = 'owner' | 'member';
