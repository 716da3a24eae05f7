import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { AppConfig, ChannelName } from '../config/app-config';
import { SEND_POLICY, SendPolicy } from '../messaging/policy/send-policy';
import { MessageValidator } from '../messaging/validation/message-validator';
import { SendPipeline } from '../messaging/send-pipeline';
import { VERIFICATION_GUARD, VerificationGuard } from '../messaging/verification-guard';
import { VERIFICATION_EVENTS, VerificationEvents } from '../messaging/verification-events';
import { CheckVerificationDto, SendVerificationDto } from './dto/send-verification.dto';
import {
  CheckedVerificationView,
  SentVerificationView,
  toCheckedVerificationView,
  toSentVerificationView,
} from './dto/verification.view';
import { VerificationEntity } from './entities/verification.entity';
import { VerificationCodes } from './verification-codes';
import { VerificationSendLimiter } from './verification-send-limiter';
import { VerificationRepository } from './verification.repository';
import type { AccountId } from '../common/account-id';

/**
 * Channels whose recipient is an address a code can verify (phone or email). Web-session and bot
 * channels address a chat (chatId + conversationContext), not a recipient.
 */
export const VERIFICATION_CHANNELS: readonly ChannelName[] = ['local_sms', 'chatapp', 'email'];

@Injectable()
export class VerificationService {
  readonly maxChecks: number;
  private readonly log = new Logger(VerificationService.name);

  constructor(
    private readonly rows: VerificationRepository,
    private readonly codes: VerificationCodes,
    private readonly limiter: VerificationSendLimiter,
    private readonly validator: MessageValidator,
    private readonly pipeline: SendPipeline,
    private readonly clock: Clock,
    @Inject(VERIFICATION_GUARD) private readonly guard: VerificationGuard,
    @Inject(VERIFICATION_EVENTS) private readonly events: VerificationEvents,
    @Inject(SEND_POLICY) private readonly policy: SendPolicy,
    config: AppConfig,
  ) {
    this.maxChecks = config.verification.maxChecks;
  }

  /**
   * Validate (the messaging validator, like any message) -> take a send slot for the recipient -> the
   * fraud guard admits the code (FRAUD_SUSPECTED otherwise; it counts the code toward its prefix) ->
   * store the hashed code as `sending` -> send through the one pipeline (billing + provider) -> `pending`.
   * Any failure after the slot was taken removes the row and hands the slot back.
   */
  async send(accountId: AccountId, dto: SendVerificationDto): Promise<SentVerificationView> {
    if (!(VERIFICATION_CHANNELS as readonly string[]).includes(dto.channel)) {
      throw new ApiError('INVALID_CHANNEL', `channel must be one of: ${VERIFICATION_CHANNELS.join(', ')}`);
    }
    const minutes = dto.expiresInMinutes ?? 10;
    const code = this.codes.generate(dto.codeLength ?? 6);
    const validated = await this.validator.validate(
      this.validator.createContext(accountId),
      this.messageInput(dto, code, minutes),
      {},
    );
    // The send policy first (a code is never marketing: only an opt-out of every message stops it).
    const [decision] = await this.policy.decide([
      {
        accountId,
        channel: validated.channel,
        recipient: validated.to,
        purpose: 'transactional',
        origin: 'verification',
      },
    ]);
    if (decision.kind === 'refuse')
      throw new ApiError(decision.code, `to: ${validated.to.slice(0, 40)} has opted out of every message`);
    const slot = await this.limiter.claim(accountId, validated.to);
    const now = this.clock.now();
    const id = newId('ver');
    const row: VerificationEntity = {
      id,
      accountId,
      channel: validated.channel,
      recipient: validated.to,
      codeHash: this.codes.hash(id, code),
      status: 'sending',
      attempts: 0,
      messageId: null,
      expiresAt: now + minutes * 60_000,
      approvedAt: null,
      createdAt: now,
    };
    try {
      // Before anything is stored or paid: a refused code costs nothing and gives its slot back.
      await this.guard.admit({ accountId, recipient: validated.to, newRecipient: slot.newRecipient });
      await this.rows.insert(row);
      const result = await this.pipeline.send(accountId, validated);
      if (result.status === 'failed') {
        throw new ApiError(
          'INVALID_RECIPIENT',
          `to: the provider rejected ${validated.to} (${result.errorCode ?? 'PROVIDER_REJECTED'})`,
        );
      }
      await this.rows.markSent(accountId, id, result.id);
    } catch (err) {
      // No pending verification and no used slot may outlive a code that was not delivered.
      await Promise.allSettled([this.rows.remove(accountId, id), this.limiter.release(slot)]);
      throw err;
    }
    await this.notify('codeSent', () => this.events.codeSent(accountId, row.recipient, now));
    return toSentVerificationView(row);
  }

  /**
   * One check = one atomically claimed attempt. After `maxChecks` checks without approval the
   * verification is locked for good (429 until it expires, then `expired`); a new code must be sent.
   */
  async check(accountId: AccountId, dto: CheckVerificationDto): Promise<CheckedVerificationView> {
    const now = this.clock.now();
    const claimed = await this.rows.claimAttempt(accountId, dto.verificationId, now, this.maxChecks);
    const row = await this.rows.find(accountId, dto.verificationId);
    if (!row || row.status === 'sending') throw ApiError.notFound('Verification');
    const view = (status: CheckedVerificationView['status'], valid = false): CheckedVerificationView =>
      toCheckedVerificationView(row, status, valid);
    if (!claimed) {
      if (row.status === 'approved') return view('approved');
      if (row.expiresAt <= now) return view('expired');
      const retryAfterSeconds = Math.max(1, Math.ceil((row.expiresAt - now) / 1000));
      throw new ApiError(
        'VERIFICATION_ATTEMPTS_EXCEEDED',
        `Maximum of ${this.maxChecks} checks reached; send a new verification code`,
        { retryAfterSeconds },
      );
    }
    // Only pending -> approved can fail here, so a right code that loses the race sees `approved`, not valid.
    if (this.codes.matches(row.id, dto.code, row.codeHash)) {
      const approved = await this.rows.approve(accountId, row.id, now);
      if (approved)
        await this.notify('codeVerified', () => this.events.codeVerified(accountId, row.recipient, row.createdAt));
      return view('approved', approved);
    }
    return view(row.status === 'approved' ? 'approved' : 'pending');
  }

  /**
   * Tells the watchers of codes (VERIFICATION_EVENTS) after the fact. Their failure is logged, never
   * the user's: the code is already delivered and paid for, and an error here would make the client
   * send (and pay for) another one. A lost notice costs one count on the chart.
   */
  private async notify(event: keyof VerificationEvents, call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (err) {
      this.log.error(`${event} not recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private messageInput(dto: SendVerificationDto, code: string, minutes: number): Record<string, unknown> {
    // A code is never marketing: never from a promotional sender, never with a marketing template.
    const base = { to: dto.to, channel: dto.channel, purpose: 'transactional' };
    if (dto.template)
      return { ...base, messageType: 'template', template: { id: dto.template.id, variablesIndexed: [code] } };
    const text = `Your verification code is ${code}. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
    const content = dto.channel === 'email' ? { subject: 'Your verification code', text } : { text };
    return { ...base, messageType: 'free_text', content };
  }
}
