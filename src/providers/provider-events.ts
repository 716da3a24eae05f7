/**
 * Ports for what providers tell us after a send (issue 13): delivery receipts and inbound SMS.
 * Providers sit below messaging and the features, so they declare the ports here and the owners
 * provide them from global modules: RECEIPT_INTAKE by messaging (the message lifecycle),
 * INBOUND_SMS_INTAKE by the module that stores inbound SMS. Provider hooks that live in features
 * (the Cloud API webhook, WAHA's `message.ack`) use the same RECEIPT_INTAKE.
 */

/** Where a receipt moves a message: forward only (sent < delivered < read), or to failed. */
export type ReceiptStatus = 'sent' | 'delivered' | 'read' | 'failed';

/** The API's code for a message the carrier or device did not get. */
export type UndeliveredCode = 'UNDELIVERED' | 'EXPIRED' | 'REJECTED_BY_CARRIER';

export interface ProviderReceipt {
  /** The provider's id of the message (or of one SMS part), as its send result returned it. */
  providerMessageId: string;
  status: ReceiptStatus;
  /** The provider's own word for it (`DELIVRD`, `delivered`, `ack 3`...), kept in the history. */
  providerStatus: string;
  /** Set when `status` is `failed`. */
  errorCode: UndeliveredCode | null;
  /** The provider's own error code (SMPP `err:`, Cloud API `errors[0].code`...). */
  providerErrorCode: string | null;
  /** When the provider says it happened (epoch ms), or when we received it. */
  at: number;
}

export interface ReceiptIntake {
  /**
   * Applies receipts (durably, idempotently): matched to messages by `providerMessageId`; a receipt
   * for an id not recorded yet is kept for RECEIPT_MATCH_WINDOW_MS and applied when it is. Resolves
   * once stored, so a provider connection can acknowledge after it.
   */
  accept(receipts: readonly ProviderReceipt[]): Promise<void>;
}
export const RECEIPT_INTAKE = Symbol('RECEIPT_INTAKE');

/**
 * One part of a concatenated SMS: `ref` names the set (`u8:` / `u16:` for the UDH reference IEs,
 * `sar:` for the SAR TLVs), `seq` is 1-based and at most `total`.
 */
export interface InboundSmsPart {
  ref: string;
  total: number;
  seq: number;
}

export interface InboundSms {
  /** The sender's number (E.164 when the SMSC gives one). */
  from: string;
  /** The number or sender name it was sent to (the SMSC's destination address). */
  to: string;
  text: string;
  providerMessageId: string | null;
  at: number;
  /** Set when this deliver_sm is one part of a concatenated SMS (the intake joins the parts). */
  part?: InboundSmsPart | null;
}

export interface InboundSmsIntake {
  /**
   * Stores the SMS (durably) and emits `sms.received` for the account it belongs to; a part is kept
   * until its set is complete (or held long enough), a redelivery of what is stored is dropped.
   */
  accept(sms: InboundSms): Promise<void>;
}
export const INBOUND_SMS_INTAKE = Symbol('INBOUND_SMS_INTAKE');
