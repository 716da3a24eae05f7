import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { LedgerService } from '../accounts/ledger.service';
import type { PaymentEstimate } from '../accounts/payment-estimate';
import { ApiError } from '../common/errors';
import { MAX_JSON_DEPTH } from '../common/json-depth';
import { SEND_POLICY, type SendPolicy } from '../messaging/policy/send-policy';
import { MessageValidator } from '../messaging/validation/message-validator';
import { ValidationContext } from '../messaging/validation/validation-context';
import { billableUnits, type ValidatedMessage } from '../messaging/validation/validated-message';
import { readBulkBody } from './bulk-body-reader';
import { checkJobFields, elementProblem } from './bulk-request-rules';
import { BulkSettings } from './bulk-settings';
import { JobCost, JobCostEstimate } from './job-cost-estimate';
import { checkBulkRow } from './row-check';

/** Invalid (and suppressed) rows listed in the answer (all are counted). */
export const MAX_LISTED_ERRORS = 100;
/** Rows validated per pause of the body stream (the reader waits while a batch is checked). */
const CHECK_BATCH = 1000;

export interface DryRunResult {
  total: number;
  valid: number;
  invalid: number;
  errors: { index: number; code: string; error: string }[];
  /** Valid rows the send policy refuses now (suppression list, do-not-disturb list): failed RECIPIENT_OPTED_OUT at dispatch, unpaid. */
  suppressed: number;
  suppressedRows: number[];
  /** Valid rows by purpose. */
  purposes: { transactional: number; marketing: number };
  channels: Record<string, number>;
  /** The valid local_sms rows: how many use each encoding and how many parts (billable units) they take in all. */
  sms: { gsm7: number; ucs2: number; segments: number };
  estimatedCost: JobCost & { currency: string };
  estimatedDurationSeconds: number;
}

/**
 * POST /messages/bulk/validate: reads a bulk body exactly as the intake does (streamed, same limits
 * and request rules except the Idempotency-Key), runs every row through the check the validation
 * loop runs, and pays the valid rows on paper from the balance as it is now, the way a running job
 * would pay them. Stores nothing.
 */
@Injectable()
export class BulkDryRunService {
  constructor(
    private readonly settings: BulkSettings,
    private readonly validator: MessageValidator,
    private readonly ledger: LedgerService,
    @Inject(SEND_POLICY) private readonly policy: SendPolicy,
  ) {}

  async run(auth: AuthContext, req: Request): Promise<DryRunResult> {
    if (!auth.account.subscriptionActive) {
      req.resume();
      throw new ApiError('SUBSCRIPTION_INACTIVE', 'The account subscription is inactive');
    }
    const tally = new DryRunTally(await this.ledger.estimate(auth.accountId));
    const ctx = this.validator.createContext(auth.accountId);
    let firstBad: string | null = null;
    let batch: { index: number; value: unknown }[] = [];
    const flush = async (): Promise<void> => {
      const rows = batch;
      batch = [];
      await this.checkInOrder(ctx, rows, tally);
    };
    const limits = { maxValueBytes: this.settings.maxElementBytes, maxDepth: MAX_JSON_DEPTH };
    const outcome = await readBulkBody(req, limits, (index, value) => {
      // A malformed element fails the request as it fails bulk creation (400 INVALID_MESSAGE).
      const problem = elementProblem(value);
      if (problem) firstBad ??= `messages[${index}] ${problem}`;
      if (firstBad) return;
      batch.push({ index, value });
      if (batch.length >= CHECK_BATCH) return flush();
    });
    if (outcome.tooLarge) {
      // As on creation: the rest of the body stays unread, the connection closes after the answer.
      req.res?.setHeader('Connection', 'close');
      throw new ApiError(
        outcome.tooLarge.element ? 'INVALID_MESSAGE' : 'INVALID_REQUEST_BODY',
        outcome.tooLarge.message,
      );
    }
    if (outcome.aborted) throw new ApiError('INVALID_REQUEST_BODY', 'The request body ended before it was complete');
    const { mps } = checkJobFields(outcome, firstBad);
    await flush();
    return tally.result(outcome.count, mps, auth.account.currency);
  }

  private async checkInOrder(
    ctx: ValidationContext,
    rows: { index: number; value: unknown }[],
    tally: DryRunTally,
  ): Promise<void> {
    const valid: { index: number; msg: ValidatedMessage }[] = [];
    for (const row of rows) {
      const verdict = await checkBulkRow(this.validator, ctx, () => row.value);
      if (verdict.ok) valid.push({ index: row.index, msg: verdict.message });
      else tally.invalid(row.index, verdict.code, verdict.message);
    }
    // The send policy as a window would ask it now (one call for the batch): a refused row is suppressed.
    const decisions = valid.length
      ? await this.policy.decide(
          valid.map(({ msg }) => ({
            accountId: ctx.accountId,
            channel: msg.channel,
            recipient: msg.to,
            purpose: msg.purpose ?? 'transactional',
            senderName: msg.sender,
            origin: 'bulk' as const,
          })),
        )
      : [];
    valid.forEach((v, i) => tally.valid(v.index, v.msg, decisions[i].kind === 'refuse'));
  }
}

/** Counts of a dry run, fed in row order. */
class DryRunTally {
  private validCount = 0;
  private invalidCount = 0;
  private suppressedCount = 0;
  private readonly suppressedRows: number[] = [];
  private readonly purposes = { transactional: 0, marketing: 0 };
  private readonly errors: DryRunResult['errors'] = [];
  private readonly channels = new Map<string, number>();
  private readonly cost = new JobCostEstimate();
  private readonly sms = { gsm7: 0, ucs2: 0, segments: 0 };

  constructor(private readonly payment: PaymentEstimate) {}

  /** A valid row; a suppressed one is neither sent nor paid (it takes its place in a window all the same). */
  valid(index: number, msg: ValidatedMessage, suppressed: boolean): void {
    this.validCount++;
    this.purposes[msg.purpose ?? 'transactional']++;
    if (suppressed) {
      this.suppressedCount++;
      if (this.suppressedRows.length < MAX_LISTED_ERRORS) this.suppressedRows.push(index);
      return;
    }
    this.channels.set(msg.channel, (this.channels.get(msg.channel) ?? 0) + 1);
    this.cost.add(msg.channel, msg.price, billableUnits(msg));
    if (msg.encoding) {
      this.sms[msg.encoding]++;
      this.sms.segments += billableUnits(msg);
    }
  }

  invalid(index: number, code: string, error: string): void {
    this.invalidCount++;
    if (this.errors.length < MAX_LISTED_ERRORS) this.errors.push({ index, code, error });
  }

  result(total: number, messagesPerSecond: number, currency: string): DryRunResult {
    return {
      total,
      valid: this.validCount,
      invalid: this.invalidCount,
      errors: this.errors,
      suppressed: this.suppressedCount,
      suppressedRows: this.suppressedRows,
      purposes: { ...this.purposes },
      channels: Object.fromEntries([...this.channels].sort(([a], [b]) => a.localeCompare(b))),
      sms: { ...this.sms },
      estimatedCost: { ...this.cost.cost(this.payment, messagesPerSecond), currency },
      // Sending time at the job's pace (N messages take N / messagesPerSecond seconds).
      estimatedDurationSeconds: Math.ceil(this.validCount / messagesPerSecond),
    };
  }
}
