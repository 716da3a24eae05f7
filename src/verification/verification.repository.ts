import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { VerificationEntity } from './entities/verification.entity';
import type { AccountId } from '../common/account-id';

/** Verification rows; every method takes the owning account id, so a cross-account read cannot be written. */
@Injectable()
export class VerificationRepository {
  constructor(@InjectRepository(VerificationEntity) private readonly rows: Repository<VerificationEntity>) {}

  async insert(row: VerificationEntity): Promise<void> {
    await this.rows.insert(row);
  }

  async find(accountId: AccountId, id: string): Promise<VerificationEntity | null> {
    return this.rows.findOneBy({ accountId, id });
  }

  async markSent(accountId: AccountId, id: string, messageId: string): Promise<void> {
    await this.rows.update({ accountId, id, status: 'sending' }, { status: 'pending', messageId });
  }

  async remove(accountId: AccountId, id: string): Promise<void> {
    await this.rows.delete({ accountId, id });
  }

  /**
   * Consumes one check of a live pending verification. One conditional UPDATE: however many checks
   * run at once, at most `maxAttempts` of them ever get to compare a code.
   */
  async claimAttempt(accountId: AccountId, id: string, now: number, maxAttempts: number): Promise<boolean> {
    const res = await this.rows
      .createQueryBuilder()
      .update()
      .set({ attempts: () => 'attempts + 1' })
      .where(
        "id = :id AND account_id = :accountId AND status = 'pending' AND attempts < :maxAttempts AND expires_at > :now",
        {
          id,
          accountId,
          maxAttempts,
          now,
        },
      )
      .execute();
    return res.affected === 1;
  }

  /** pending -> approved, once: a second right code (or a concurrent one) finds nothing to update. */
  async approve(accountId: AccountId, id: string, now: number): Promise<boolean> {
    const res = await this.rows
      .createQueryBuilder()
      .update()
      .set({ status: 'approved', approvedAt: now })
      .where("id = :id AND account_id = :accountId AND status = 'pending'", { id, accountId })
      .execute();
    return res.affected === 1;
  }
}
