import { Injectable } from '@nestjs/common';
import type { AccountId } from '../account-id';

/** Who is erased: in one account, every plain form the recipient may be stored under, and its one-way hash. */
export interface ErasureTarget {
  accountId: AccountId;
  /** The normalised recipient (E.164 or lower-case email) first, then other stored forms (`9665...` without `+`). */
  forms: readonly string[];
  /** RecipientHasher.hash(accountId, normalised recipient): what replaces it. */
  hash: string;
}

/**
 * One table's part of an erasure (issue 29): anonymises at most `limit` of the account's rows that
 * name the target (recipient -> hash; text, variables and bodies removed; counts, costs, statuses and
 * times kept) and says how many. A row once erased no longer names the target, so a batch is
 * idempotent and a crashed pass is simply run again. The module that owns the table provides it and
 * registers it with RecipientErasers (the privacy module runs them and never names their tables).
 */
export interface RecipientEraser {
  /** The key of the erasure's `counts` (`messages`, `bulkRows`, ...). */
  readonly kind: string;
  erase(target: ErasureTarget, limit: number): Promise<number>;
  /** Rows that name the target but cannot be erased yet (in a sender's hands): the erasure waits for them. */
  waiting?(target: ErasureTarget): Promise<boolean>;
}

/** The erasers of every table that names recipients, in registration order (a port: common imports no feature). */
@Injectable()
export class RecipientErasers {
  private readonly erasers: RecipientEraser[] = [];

  register(eraser: RecipientEraser): void {
    if (this.erasers.some((e) => e.kind === eraser.kind)) throw new Error(`eraser ${eraser.kind} registered twice`);
    this.erasers.push(eraser);
  }

  all(): readonly RecipientEraser[] {
    return this.erasers;
  }
}
