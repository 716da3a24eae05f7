import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { VerificationSendWindowEntity } from './entities/verification-send-window.entity';
import type { AccountId } from '../common/account-id';

/** A send slot taken in a recipient's window; handed back when the code could not be delivered. */
export interface SendSlot {
  id: string;
  windowStartedAt: number;
  /** The account had no window for this recipient: a number new to it (the fraud guard's velocity rule). */
  newRecipient: boolean;
}

/**
 * At most `VERIFICATION_SEND_LIMIT` codes per (account, recipient) in a fixed window of
 * `VERIFICATION_SEND_WINDOW_SECONDS` that starts with the window's first send. Every step is one
 * conditional UPDATE, so the limit holds across replicas and concurrent requests.
 */
@Injectable()
export class VerificationSendLimiter {
  readonly limit: number;
  readonly windowMs: number;

  constructor(
    @InjectRepository(VerificationSendWindowEntity) private readonly windows: Repository<VerificationSendWindowEntity>,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.limit = config.verification.sendLimit;
    this.windowMs = config.verification.sendWindowMs;
  }

  /** Takes one slot or throws 429 VERIFICATION_ATTEMPTS_EXCEEDED with the seconds until the window ends. */
  async claim(accountId: AccountId, recipient: string): Promise<SendSlot> {
    const id = createHash('sha256').update(`${accountId}:${recipient}`).digest('hex');
    // A lost race between the two updates (another request opened a new window, or the purge removed
    // an idle window) just goes round again; the window row is created only when it does not exist.
    let newRecipient = false;
    for (let round = 0; round < 5; round++) {
      const now = this.clock.now();
      const cut = now - this.windowMs;
      const inWindow = await this.windows
        .createQueryBuilder()
        .update()
        .set({ sends: () => 'sends + 1' })
        .where('id = :id AND window_started_at > :cut AND sends < :limit', { id, cut, limit: this.limit })
        .execute();
      if (inWindow.affected) return { id, windowStartedAt: (await this.read(id)).windowStartedAt, newRecipient };
      const fresh = await this.windows
        .createQueryBuilder()
        .update()
        .set({ sends: 1, windowStartedAt: now })
        .where('id = :id AND window_started_at <= :cut', { id, cut })
        .execute();
      if (fresh.affected) return { id, windowStartedAt: now, newRecipient };
      const row = await this.windows.findOneBy({ id });
      if (!row) {
        await this.windows
          .createQueryBuilder()
          .insert()
          .values({ id, accountId, windowStartedAt: now, sends: 0 })
          .orIgnore()
          .execute();
        newRecipient = true;
        continue;
      }
      if (row.windowStartedAt > cut && row.sends >= this.limit) {
        const retryAfterSeconds = Math.max(1, Math.ceil((row.windowStartedAt + this.windowMs - now) / 1000));
        throw new ApiError(
          'VERIFICATION_ATTEMPTS_EXCEEDED',
          `Too many verification codes sent to this recipient; try again in ${retryAfterSeconds} seconds`,
          { retryAfterSeconds },
        );
      }
    }
    throw new ApiError('CONFLICT', 'The send window changed concurrently; retry the request');
  }

  /** Gives the slot back (the code was never delivered), unless its window has been replaced since. */
  async release(slot: SendSlot): Promise<void> {
    await this.windows
      .createQueryBuilder()
      .update()
      .set({ sends: () => 'sends - 1' })
      .where('id = :id AND window_started_at = :start AND sends > 0', { id: slot.id, start: slot.windowStartedAt })
      .execute();
  }

  private async read(id: string): Promise<VerificationSendWindowEntity> {
    return this.windows.findOneByOrFail({ id });
  }
}
