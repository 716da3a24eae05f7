import { Injectable } from '@nestjs/common';
import type { VerificationEvents } from '../messaging/verification-events';
import { VerificationDailyCounts } from './verification-daily-counts';

/**
 * The fraud module's side of the VERIFICATION_EVENTS port: each notice goes to every watcher of
 * one-time codes in this module (the daily counts today; pumping detection hangs off the same calls).
 */
@Injectable()
export class VerificationActivity implements VerificationEvents {
  constructor(private readonly daily: VerificationDailyCounts) {}

  async codeSent(accountId: string, _recipient: string, at: number): Promise<void> {
    await this.daily.countSent(accountId, at);
  }

  async codeVerified(accountId: string, _recipient: string, sentAt: number): Promise<void> {
    await this.daily.countVerified(accountId, sentAt);
  }
}
