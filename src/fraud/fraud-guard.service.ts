import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import type { FraudConfig } from '../config/fraud.config';
import type { CodeRequest, VerificationGuard } from '../messaging/verification-guard';
import { MetricsService } from '../metrics/metrics.service';
import { destinationPrefix, minuteOf } from './destination-prefix';
import { FraudBlocksService } from './fraud-blocks.service';
import { judge } from './fraud-verdict';
import { PREFIX_COUNTERS, PrefixCounters } from './prefix-counters';
import type { AccountId } from '../common/account-id';

/**
 * The fraud guard of verification codes (SMS pumping): per account and destination prefix, codes
 * sent and verified over a sliding window of minutes. A code is refused with 429 FRAUD_SUSPECTED,
 * before it is paid, while a block is in force (the account's or the platform's); a request that
 * trips a limit (low conversion, a burst of new numbers) raises the block and is refused too.
 */
@Injectable()
export class FraudGuardService implements VerificationGuard {
  private readonly c: FraudConfig;

  constructor(
    @Inject(PREFIX_COUNTERS) private readonly counters: PrefixCounters,
    private readonly blocks: FraudBlocksService,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.c = config.fraud;
  }

  async admit(req: CodeRequest): Promise<void> {
    const prefix = this.prefixOf(req.recipient);
    if (prefix === null) return;
    const now = this.clock.now();
    // Counted as it is read (one round trip for a code that goes out); a refused code is given back.
    const tally = await this.counters.admit(req.accountId, prefix, now, this.windowStart(now), req.newRecipient);
    const verdict = judge(tally, req.newRecipient, this.c);
    if (verdict.kind === 'allow') return;
    await this.counters.uncount(req.accountId, prefix, minuteOf(now), req.newRecipient);
    const until =
      verdict.kind === 'blocked'
        ? verdict.until
        : await this.blocks.raise(req.accountId, prefix, verdict.reason, tally, now);
    this.metrics.recordFraudRefusal(req.accountId, verdict.kind === 'blocked' ? 'blocked' : verdict.reason);
    const retryAfterSeconds = Math.max(1, Math.ceil((until - now) / 1000));
    throw new ApiError(
      'FRAUD_SUSPECTED',
      `Verification codes to ${prefix}... are blocked by the fraud guard (unusual traffic to this prefix); nothing was charged. Try again in ${retryAfterSeconds} seconds, or lift the block (GET /api/v2/verification/fraud-blocks)`,
      { retryAfterSeconds },
    );
  }

  /** A code sent at `sentAt` was verified: it counts toward its prefix's conversion (VerificationActivity calls it). */
  async countVerified(accountId: AccountId, recipient: string, sentAt: number): Promise<void> {
    const prefix = this.prefixOf(recipient);
    if (prefix === null) return;
    // A failure is logged by the caller of the notice (VerificationService): the user's check stands.
    await this.counters.countVerified(accountId, prefix, minuteOf(sentAt));
  }

  /** The prefix the guard counts `recipient` under; null when it has none (an email) or the guard is off. */
  private prefixOf(recipient: string): string | null {
    return this.c.guardEnabled ? destinationPrefix(recipient, this.c.prefixDigits) : null;
  }

  /** The window's first minute: codes sent in it or after count. */
  private windowStart(now: number): number {
    return minuteOf(now - this.c.windowMs) + 1;
  }
}
