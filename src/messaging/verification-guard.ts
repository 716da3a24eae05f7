import type { AccountId } from '../common/account-id';
/*
 * Port (messaging sits below the features): what verification asks of the fraud guard before a code
 * is stored or paid, provided by FraudModule (global). Verification cannot import the fraud module;
 * both import this. What happened to codes afterwards (sent, verified) goes through VERIFICATION_EVENTS.
 */

/** A code about to be sent: its recipient (E.164 or email) and whether the account has sent it a code before. */
export interface CodeRequest {
  accountId: AccountId;
  recipient: string;
  /** No send window of this account exists for the recipient (a number new to the account). */
  newRecipient: boolean;
}

export interface VerificationGuard {
  /**
   * Before the code is paid: throws ApiError FRAUD_SUSPECTED (429, retryAfterSeconds) when the
   * recipient's destination prefix is blocked or the request would trip a limit; otherwise counts
   * the code as sent. Costs one indexed read and one counter write (database), or one Redis round trip.
   */
  admit(req: CodeRequest): Promise<void>;
}

export const VERIFICATION_GUARD = Symbol('VERIFICATION_GUARD');
