import type { DataSource } from 'typeorm';

export interface AccountFields {
  name?: string;
  wallet?: number;
  free?: number;
  quota?: number;
  used?: number;
  active?: boolean;
}

/** For unit specs on the in-memory database: an account row written directly (the accounts table is this module's). */
export async function insertAccountRow(ds: DataSource, id: string, f: AccountFields = {}): Promise<void> {
  await ds.query(
    'INSERT INTO accounts (id, name, phone_verified, subscription_active, wallet_balance, currency, plan_name, message_quota, messages_used, free_messages, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, NULL, ?, ?, ?, 0, 0)',
    [id, f.name ?? 'x', f.active === false ? 0 : 1, f.wallet ?? 0, 'SAR', f.quota ?? 0, f.used ?? 0, f.free ?? 0],
  );
}

/** An account's balances as stored. */
export async function accountBalances(
  ds: DataSource,
  id: string,
): Promise<{ wallet: number; free: number; used: number }> {
  const [r] = (await ds.query(
    'SELECT wallet_balance AS w, free_messages AS f, messages_used AS u FROM accounts WHERE id = ?',
    [id],
  )) as { w: unknown; f: unknown; u: unknown }[];
  return { wallet: Number(r.w), free: Number(r.f), used: Number(r.u) };
}
