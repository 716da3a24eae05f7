import { Injectable } from '@nestjs/common';
import type { VerificationEvents } from '../messaging/verification-events';
import { FraudGuardService } from './fraud-guard.service';
import { VerificationDailyCounts } from './verification-daily-counts';
import type { AccountId } from '../common/account-id';

/**
 * The fraud module's side of the VERIFICATION_EVENTS port: each notice goes to every watcher of
 * one-time codes in this module: the daily counts, and the fraud guard's conversion per prefix.
 */
@Injectable()
export class VerificationActivity implements VerificationEvents {
  constructor(
    private readonly daily: VerificationDailyCounts,
    private readonly guard: FraudGuardService,
  ) {}

  async codeSent(accountId: AccountId, _recipient: string, at: number): Promise<void> {
    await this.daily.countSent(accountId, at);
  }

  async codeVerified(accountId: AccountId, recipient: string, sentAt: number): Promise<void> {
    await Promise.all([
      this.daily.countVerified(accountId, sentAt),
      this.guard.countVerified(accountId, recipient, sentAt),
    ]);
  }
}
