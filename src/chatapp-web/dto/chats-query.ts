import { ApiError } from '../../common/errors';
import type { ChatTypeFilter } from '../providers/web-session-provider';

export interface ChatsQuery {
  accountId: string;
  type: ChatTypeFilter;
  limit: number;
  cursor: string | null;
}

const KNOWN = new Set(['accountId', 'type', 'limit', 'cursor']);

/** Query of GET /api/v2/chatapp-web/chats; every bad value is a 400 VALIDATION_ERROR naming it. */
export function parseChatsQuery(raw: Record<string, unknown>): ChatsQuery {
  const unknown = Object.keys(raw).filter((k) => !KNOWN.has(k));
  if (unknown.length) throw ApiError.validation(`unknown query parameter ${unknown[0]}`);
  const accountId = raw.accountId;
  if (accountId === undefined || accountId === '') throw ApiError.validation('accountId is required');
  if (typeof accountId !== 'string' || accountId.length > 100)
    throw ApiError.validation('accountId must be one web-session name or bot id');
  const type = raw.type ?? 'all';
  if (type !== 'all' && type !== 'direct' && type !== 'group')
    throw ApiError.validation('type must be one of all, direct, group');
  const limitRaw = raw.limit ?? '20';
  if (typeof limitRaw !== 'string' || !/^\d{1,3}$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > 50) {
    throw ApiError.validation('limit must be an integer from 1 to 50');
  }
  const cursor = raw.cursor ?? null;
  if (cursor !== null && typeof cursor !== 'string') throw ApiError.validation('cursor is invalid');
  return { accountId, type, limit: Number(limitRaw), cursor: cursor === '' ? null : cursor };
}
