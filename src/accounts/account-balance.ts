import { ApiError } from '../common/errors';
import { caseOf, inList, query, Query, Row, Stmt } from '../database/sql';
import type { FundingSource, Spendable } from './funding';

/** An account's balance as the ledger reads it. */
export interface BalanceRow {
  id: string;
  free_messages: number;
  message_quota: number;
  messages_used: number;
  wallet_balance: number;
  subscription_active: boolean;
}

/** A balance as `balancesOf` selects it (decoded: the driver may return numbers as strings, booleans as 0/1). */
export function toBalanceRow(r: Row): BalanceRow {
  return {
    id: String(r.id),
    free_messages: Number(r.free_messages),
    message_quota: Number(r.message_quota),
    messages_used: Number(r.messages_used),
    wallet_balance: Number(r.wallet_balance),
    subscription_active: r.subscription_active === true || Number(r.subscription_active) === 1,
  };
}

/**
 * The balances of `ids`. `lock`: a locking read, holding the rows until the unit ends, so what is
 * planned from it is what the guarded UPDATEs then take (where the database has no row locks a unit
 * is exclusive, and a plain read is as good).
 */
export function balancesOf(ids: string[], lock: boolean): Query<BalanceRow> {
  return query(toBalanceRow, {
    sql: `SELECT id, free_messages, message_quota, messages_used, wallet_balance, subscription_active FROM accounts WHERE id IN (${inList(ids.length)})${lock ? ' ORDER BY id FOR UPDATE' : ''}`,
    params: ids,
  });
}

export function spendableOf(b: BalanceRow): Spendable {
  return {
    free: b.free_messages,
    quota: Math.max(0, b.message_quota - b.messages_used),
    wallet: b.wallet_balance,
  };
}

/** An account's balance when it may pay, or why it may not: unknown, or its subscription inactive (nothing is taken). */
export function payer(b: BalanceRow | null | undefined): BalanceRow | ApiError {
  if (!b) return ApiError.notFound('Account');
  if (!b.subscription_active) return new ApiError('SUBSCRIPTION_INACTIVE', 'The account subscription is inactive');
  return b;
}

/** The balance cannot pay for `what` ("this message", "3 message(s) on email"). */
export function insufficient(what: string): ApiError {
  return new ApiError('INSUFFICIENT_BALANCE', `Free messages, plan quota and wallet balance cannot pay for ${what}`);
}

/** How a payment moves each source's column: free messages and the wallet go down, used quota up, never past its bound. */
const SOURCE_COLUMNS: Record<FundingSource, { set(amount: string): string; guard(amount: string): string }> = {
  free: { set: (a) => `free_messages = free_messages - ${a}`, guard: (a) => `free_messages >= ${a}` },
  quota: { set: (a) => `messages_used = messages_used + ${a}`, guard: (a) => `messages_used + ${a} <= message_quota` },
  wallet: { set: (a) => `wallet_balance = wallet_balance - ${a}`, guard: (a) => `wallet_balance >= ${a}` },
};

/**
 * One conditional UPDATE taking each account's share (billable units, or minor units from the
 * wallet) from one source: an account whose balance no longer covers its share, or whose
 * subscription is inactive, is not changed, so no balance can go below zero whatever runs
 * concurrently. The caller compares the rows changed with the shares.
 */
export function takeFrom(source: FundingSource, shares: [string, number][]): Stmt {
  const one = shares.length === 1;
  const amount = one ? { sql: '?', params: [shares[0][1]] } : caseOf('id', shares);
  const ids = shares.map(([id]) => id);
  const { set, guard } = SOURCE_COLUMNS[source];
  return {
    sql: `UPDATE accounts SET ${set(amount.sql)} WHERE ${one ? 'id = ?' : `id IN (${inList(ids.length)})`} AND subscription_active = ? AND ${guard(amount.sql)}`,
    params: [...amount.params, ...ids, 1, ...amount.params],
  };
}
