import { ApiFailure, toFailure } from './failure';

/*
 * HAND-WRITTEN CONTRACT (issue 31): GET/DELETE /api/v2/verification/fraud-blocks are being built on
 * another branch and are not in clients/typescript yet. Once they are, replace these types with the
 * generated `Schemas[...]` and these fetches with `client.GET` / `client.DELETE`, and delete this file.
 */

export interface FraudBlock {
  id: string;
  /** The number prefix the block covers (e.g. `+88213`). */
  prefix: string;
  /** `account`: this account's own block (the owner may lift it); `platform`: set for every account. */
  scope: 'account' | 'platform';
  reason: 'low_conversion' | 'velocity';
  sends: number;
  verified: number;
  since: string;
  until: string;
  liftedAt: string | null;
  active: boolean;
}

export interface FraudBlockPage {
  blocks: FraudBlock[];
  nextCursor: string | null;
  hasMore: boolean;
}

const PATH = '/api/v2/verification/fraud-blocks';

async function call<T>(apiKey: string, method: 'GET' | 'DELETE', path: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(new URL(path, window.location.origin), { method, headers: { 'X-API-Key': apiKey } });
  } catch (err) {
    throw new ApiFailure(
      0,
      'NETWORK_ERROR',
      `The service did not answer (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const body: unknown = (res.headers.get('content-type') ?? '').includes('json') ? await res.json() : await res.text();
  if (!res.ok) throw toFailure(res, body);
  return (body as { data: T }).data;
}

/**
 * One page of the account's fraud blocks; null when the list is not for this key or not there: 403
 * (a member key: owners only) or 404 (a service without the route).
 */
export async function listFraudBlocks(apiKey: string, cursor?: string): Promise<FraudBlockPage | null> {
  try {
    return await call<FraudBlockPage>(apiKey, 'GET', cursor ? `${PATH}?cursor=${encodeURIComponent(cursor)}` : PATH);
  } catch (err) {
    if (err instanceof ApiFailure && (err.status === 403 || err.status === 404)) return null;
    throw err;
  }
}

/** Lifts an account-scope block; the block as it is now. */
export async function liftFraudBlock(apiKey: string, id: string): Promise<FraudBlock> {
  return (await call<{ block: FraudBlock }>(apiKey, 'DELETE', `${PATH}/${encodeURIComponent(id)}`)).block;
}
