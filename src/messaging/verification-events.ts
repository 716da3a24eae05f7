import type { AccountId } from '../common/account-id';
/*
 * Port: what the verification feature tells the modules that watch one-time codes (the fraud guard:
 * daily counts for the console's chart, pumping detection). Verification declares nothing itself,
 * since features never import each other: messaging holds the interface and token, FraudModule
 * provides the token (`useExisting` its service) and exports it from its global module.
 *
 * Both calls are after-the-fact notices, made once per event, awaited by the caller. A rejection is
 * logged by the caller and never fails the user's verification: the code was already delivered and
 * paid for, and a failed answer would make the client send (and pay for) another one.
 */
export interface VerificationEvents {
  /** A code was handed to the provider for `recipient` (E.164 phone or lowercased email) at `at` (epoch ms). */
  codeSent(accountId: AccountId, recipient: string, at: number): Promise<void>;

  /**
   * A check approved the code sent to `recipient` (once per verification). `sentAt` is when that code
   * was sent (epoch ms), so a verification counts against the send it converts, whatever day it is now.
   */
  codeVerified(accountId: AccountId, recipient: string, sentAt: number): Promise<void>;
}

export const VERIFICATION_EVENTS = Symbol('VERIFICATION_EVENTS');
