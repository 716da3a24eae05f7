import { LedgerService } from '../accounts/ledger.service';
import { ChannelName, CHANNELS } from '../config/app-config';
import { UnitOfWork } from '../database/unit-of-work';
import { sql } from '../database/sql';

/**
 * Can the account pay for the next row a run would send (the first row in `status`, by index)? Its
 * channel sets the price; a row without a known channel is priced as local_sms.
 */
export async function canPayNextRow(db: UnitOfWork, ledger: LedgerService, accountId: string, jobId: string, status: 'pending' | 'failed'): Promise<boolean> {
  const [row] = await db.rows(sql('SELECT channel FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT 1', jobId, status));
  const channel = String(row?.channel ?? '');
  return ledger.canPay(accountId, (CHANNELS as readonly string[]).includes(channel) ? (channel as ChannelName) : 'local_sms');
}
