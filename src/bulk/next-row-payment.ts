import { LedgerService } from '../accounts/ledger.service';
import { ChannelName, CHANNELS } from '../config/app-config';
import type { BulkRowRepository } from './bulk-row.repository';
import type { AccountId } from '../common/account-id';

/** Can the account pay one message on `channel` (a row without a known channel is priced as local_sms)? */
export function canPayChannel(ledger: LedgerService, accountId: AccountId, channel: string | null): Promise<boolean> {
  const c = channel ?? '';
  return ledger.canPay(accountId, (CHANNELS as readonly string[]).includes(c) ? (c as ChannelName) : 'local_sms');
}

/** Can the account pay for the next row a run would send (the first row in `status`, by index)? */
export async function canPayNextRow(
  rows: BulkRowRepository,
  ledger: LedgerService,
  accountId: AccountId,
  jobId: string,
  status: 'pending' | 'failed',
): Promise<boolean> {
  return canPayChannel(ledger, accountId, await rows.firstChannel(jobId, status));
}
