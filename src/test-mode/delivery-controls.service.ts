import { Injectable } from '@nestjs/common';
import { AccountsService, AccountView } from '../accounts/accounts.service';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { ReceiptIntakeService } from '../messaging/lifecycle/receipt-intake.service';
import { MessageDetailView, MessagesService } from '../messaging/messages.service';
import type { SandboxFaultKind } from '../providers/sandbox/sandbox-store';
import { SandboxProvider } from '../providers/sandbox/sandbox.provider';
import type { AddTestFaultRequest, SetTestMessageStatusRequest, TestFaultKind } from './dto/controls.request';
import type { AccountId } from '../common/account-id';

/** The sandbox's kind of each test-mode fault. */
const SANDBOX_KIND: Record<TestFaultKind, SandboxFaultKind> = {
  provider_rate_limit: 'rate_limit',
  provider_unavailable: 'unavailable',
  timeout: 'timeout',
};

/** What the status history shows as the provider's word for a receipt given with the controls. */
const SIMULATED = 'simulated';

export interface TestFaultView {
  id: string;
  kind: TestFaultKind;
  channel: string | null;
  count: number;
}

/**
 * Test-mode controls over what providers decide: receipts of sent messages, faults of the next sends,
 * the test balance. Always for the calling test key's account (its test twin): every read and write
 * is scoped by it, so another account's or a live message is not found.
 */
@Injectable()
export class DeliveryControlsService {
  constructor(
    private readonly messages: MessagesService,
    private readonly receipts: ReceiptIntakeService,
    private readonly sandbox: SandboxProvider,
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
  ) {}

  /**
   * A receipt for a sent message, through the one receipt writer (forward only, history and
   * `message.*` events in its unit): 409 INVALID_STATE for a message not sent yet, and for a receipt
   * that would not move it (stale, repeated, or the message is final). The sandbox's own simulated
   * receipts still come and, forward only, change nothing a control has passed.
   */
  async setMessageStatus(accountId: AccountId, id: string, r: SetTestMessageStatusRequest): Promise<MessageDetailView> {
    const failed = r.status === 'failed';
    if (!failed && (r.errorCode !== undefined || r.errorMessage !== undefined))
      throw ApiError.validation('errorCode and errorMessage are only for status failed');
    const before = await this.messages.get(accountId, id);
    if (before.status === 'scheduled' || before.status === 'queued')
      throw new ApiError('INVALID_STATE', `Message is ${before.status}: it is not sent yet, so no receipt can move it`);
    const moved = await this.receipts.acceptForMessage(accountId, id, {
      status: r.status,
      providerStatus: SIMULATED,
      errorCode: failed ? (r.errorCode ?? 'UNDELIVERED') : null,
      providerErrorCode: null,
      errorMessage: failed ? (r.errorMessage ?? null) : null,
      at: this.clock.now(),
    });
    const after = await this.messages.get(accountId, id);
    if (!moved)
      throw new ApiError(
        'INVALID_STATE',
        `Message is ${after.status}: a receipt moves a sent message forward only (sent -> delivered -> read, or sent -> failed)`,
      );
    return after;
  }

  /** The next `count` sends of the account (of one channel, or any) fail as `kind`, in the sandbox. */
  async addFault(accountId: AccountId, f: AddTestFaultRequest): Promise<TestFaultView> {
    const channel = f.channel ?? null;
    const id = await this.sandbox.store.addFault(
      { channel, accountId, kind: SANDBOX_KIND[f.kind], count: f.count, delayMs: null },
      this.clock.now(),
    );
    return { id, kind: f.kind, channel, count: f.count };
  }

  /** Clears the account's faults only; how many still had sends to fail. */
  clearFaults(accountId: AccountId): Promise<number> {
    return this.sandbox.store.clearFaultsOf(accountId);
  }

  /** The test wallet back to TEST_MODE_BALANCE; the account as GET /api/v2/account shows it. */
  async resetBalance(accountId: AccountId): Promise<AccountView> {
    return this.accounts.resetTestBalance(accountId);
  }
}
