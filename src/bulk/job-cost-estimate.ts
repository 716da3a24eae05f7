import type { PaymentEstimate, SpentEstimate } from '../accounts/payment-estimate';

export interface JobCost extends SpentEstimate {
  /** Messages (not parts) the balance cannot pay: the job pauses (`insufficient_balance`) in the window of the first, so every later one counts too. */
  unpaid: number;
}

/**
 * The valid rows of a job, in row order, as one byte each (the number of the row's channel and SMS
 * parts, at most 5 channels x 24 parts of a 1,600-character SMS): a million rows
 * cost a megabyte, and the order of payment can only be worked out once `messagesPerSecond` is
 * known, which a body may send after `messages`.
 */
export class JobCostEstimate {
  private readonly channels: { name: string; price: number; units: number }[] = [];
  private readonly numbers = new Map<string, number>();
  private rows = new Uint8Array(4096);
  private count = 0;

  /** One valid row: its channel, what it costs from the wallet (all its parts) and its billable units. */
  add(channel: string, price: number, units = 1): void {
    const key = `${channel}:${units}`;
    let n = this.numbers.get(key);
    if (n === undefined) {
      n = this.channels.push({ name: channel, price, units }) - 1;
      this.numbers.set(key, n);
    }
    if (this.count === this.rows.length) {
      const bigger = new Uint8Array(this.rows.length * 2);
      bigger.set(this.rows);
      this.rows = bigger;
    }
    this.rows[this.count++] = n;
  }

  /**
   * Pays the rows as a running job does: windows of `mps` rows in row order (BulkJobRunner claims
   * that many); in a window, the rows of each channel and number of parts in one payment, in order of
   * first appearance (MessagePayments.payWindow -> LedgerBatch.debitAcross), each message whole from
   * one source in FUNDING_ORDER. A window with an unpaid message pauses the job: nothing after it is paid.
   */
  cost(payment: PaymentEstimate, mps: number): JobCost {
    let unpaid = 0;
    for (let start = 0; start < this.count; start += mps) {
      const end = Math.min(this.count, start + mps);
      if (unpaid > 0) {
        unpaid += end - start;
        continue;
      }
      const order: number[] = [];
      for (let i = start; i < end; i++) if (!order.includes(this.rows[i])) order.push(this.rows[i]);
      for (const n of order) {
        const { price, units } = this.channels[n];
        for (let i = start; i < end; i++) if (this.rows[i] === n && payment.pay(price, units) === null) unpaid++;
      }
    }
    return { ...payment.result(), unpaid };
  }
}
