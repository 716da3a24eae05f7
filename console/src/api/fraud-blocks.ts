import { ApiFailure, unwrap } from './failure';
import type { MessagingClient, Schemas } from './public';

export type FraudBlock = Schemas['FraudBlock'];
export type FraudBlockPage = Schemas['FraudBlockPage'];

/**
 * One page of the account's fraud blocks; null when the list is not for this key: 403 (a member key:
 * owners only) or 404 (a service without the route).
 */
export async function listFraudBlocks(client: MessagingClient, cursor?: string): Promise<FraudBlockPage | null> {
  try {
    const query = cursor ? { cursor } : {};
    return (await unwrap(client.GET('/api/v2/verification/fraud-blocks', { params: { query } }))).data;
  } catch (err) {
    if (err instanceof ApiFailure && (err.status === 403 || err.status === 404)) return null;
    throw err;
  }
}

/** Lifts an account-scope block; the block as it is now. */
export async function liftFraudBlock(client: MessagingClient, id: string): Promise<FraudBlock> {
  return (await unwrap(client.DELETE('/api/v2/verification/fraud-blocks/{id}', { params: { path: { id } } }))).data
    .block;
}
