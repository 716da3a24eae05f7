import { LedgerService } from '../accounts/ledger.service';
import { ChannelName, CHANNELS } from '../config/app-config';
import type { BulkRowRepository } from './bulk-row.repository';

/**
 * Can the account pay for the next row a run would send (the first row in `status`, by index)? Its
 * channel sets the price; a row without a known channel is priced as local_sms.
 */
export async function canPayNextRow(rows: BulkRowRepository, ledger: LedgerService, accountId: string, jobId: string, status: 'pending' | 'failed'): Promise<boolean> {
  const channel = (await rows.firstChannel(jobId, status)) ?? '';
  return ledger.canPay(accountId, (CHANNELS as readonly string[]).includes(channel) ? (channel as ChannelName) : 'local_sms');
}
