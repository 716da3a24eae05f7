import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ApiLivemode } from '../../common/openapi';
import { CHANNELS } from '../../config/app-config';
import { MESSAGE_STATUSES, MessageStatus } from '../entities/message.entity';
import type { MessageView } from '../message-view';
import type { HistoryEntry } from '../lifecycle/status-trail';
import type { MessageDetailView, SentMessageView } from '../messages.service';
import { MESSAGE_FAILURE_CODES, MessageFailureCode } from '../send-outcome';
import { MESSAGE_PURPOSES, MESSAGE_TYPES } from '../validation/validated-message';
import { SMS_ENCODINGS, type SmsEncoding } from '../../common/sms/sms-segments';

// Response shapes of the messages routes. Each class implements the view the service returns, so a
// field added to (or retyped in) the view without its documentation is a compile error here.

/** What a send answers with (`cancelled` comes later, through POST /messages/{id}/cancel). */
const SEND_STATUSES: MessageStatus[] = ['scheduled', 'queued', 'sent', 'failed'];
const FUNDING_SOURCES = ['free', 'quota', 'wallet'];
const LOGGED_BEFORE = ' and on messages logged before parts were counted';

// `encoding` and `segments` of the send response and the message resource (`alsoNull`: when else they are null).
const smsEncodingProperty = (alsoNull: string): ApiPropertyOptions => ({
  type: 'string',
  enum: [...SMS_ENCODINGS, null],
  nullable: true,
  description: `local_sms: \`gsm7\` (GSM 03.38: 160 characters in one part, 153 per part; \`€ [ ] { } ^ ~ \\ |\` count two) or \`ucs2\` (70 in one part, 67 per part; characters outside the BMP count two). null on other channels${alsoNull}.`,
  example: 'gsm7',
});
const smsSegmentsProperty = (alsoNull: string): ApiPropertyOptions => ({
  type: 'integer',
  minimum: 1,
  nullable: true,
  description: `local_sms: the parts the text takes; each part is one billable unit (cost = parts x PRICE_LOCAL_SMS when the wallet pays). null on other channels (one unit)${alsoNull}.`,
  example: 1,
});

export class SentMessage implements SentMessageView {
  @ApiProperty({ description: 'Message id (GET /api/v2/messages/{id}).', example: 'msg_01jd0r8m6f3q9w2k4x7b5c8v1n' })
  id: string;

  @ApiProperty({
    description: 'The recipient as stored: E.164 phone, lowercased email, or chat id.',
    example: '+966501234567',
  })
  to: string;

  @ApiProperty({ enum: CHANNELS, example: 'local_sms' })
  channel: string;

  @ApiProperty({
    enum: MESSAGE_PURPOSES,
    description: 'transactional or marketing (see the request field `purpose`).',
    example: 'transactional',
  })
  purpose: SentMessageView['purpose'];

  @ApiProperty({
    enum: SEND_STATUSES,
    description:
      '`sent`: accepted by the provider; `scheduled`: paid, sent at scheduledAt; `queued`: still being handed to the provider; `failed`: not sent and refunded (see errorCode).',
    example: 'sent',
  })
  status: SentMessageView['status'];

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Minor units taken from the wallet: 0 when free messages or the plan quota paid, or when refunded (failed). An SMS costs its price per part times its parts.',
    example: 5,
  })
  cost: number;

  @ApiProperty(smsEncodingProperty(''))
  encoding: SmsEncoding | null;

  @ApiProperty(smsSegmentsProperty(''))
  segments: number | null;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Scheduled messages only.',
    example: '2030-01-01T09:00:00.000Z',
  })
  scheduledAt?: string;

  @ApiPropertyOptional({
    enum: ['quiet_hours'],
    description:
      "quiet_hours: a marketing message outside the account's sending hours (GET /api/v2/account/compliance, recipient's local time), accepted and scheduled for the window's next opening.",
    example: 'quiet_hours',
  })
  scheduledReason?: 'quiet_hours';

  @ApiPropertyOptional({
    enum: MESSAGE_FAILURE_CODES,
    description:
      'Failed messages only: PROVIDER_REJECTED (the provider refused this recipient), INVALID_ATTACHMENT (a URL refused at send time), or in a batch the provider error that stopped it (PROVIDER_ERROR, PROVIDER_UNAVAILABLE, PROVIDER_RATE_LIMITED).',
    example: 'PROVIDER_REJECTED',
  })
  errorCode?: MessageFailureCode;

  @ApiLivemode()
  livemode: boolean;
}

export class SendMessageResult {
  @ApiProperty({
    type: () => [SentMessage],
    minItems: 1,
    maxItems: 100,
    description: 'One entry per recipient, in the order of `to`.',
  })
  messages: SentMessage[];
}

export class MessageResource implements MessageView {
  @ApiProperty({ example: 'msg_01jd0r8m6f3q9w2k4x7b5c8v1n' })
  id: string;

  @ApiProperty({ description: 'E.164 phone, lowercased email, or chat id.', example: '+966501234567' })
  to: string;

  @ApiProperty({ enum: CHANNELS, example: 'local_sms' })
  channel: string;

  @ApiProperty({ enum: MESSAGE_TYPES, example: 'free_text' })
  messageType: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Sender name (local_sms: the approved sender used).',
    example: 'MyShop',
  })
  sender: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Template messages only.', example: null })
  templateId: string | null;

  @ApiProperty({
    enum: MESSAGE_PURPOSES,
    description:
      "`marketing` when the request said so, the template's subType is marketing or the SMS went out from a promotional sender; otherwise `transactional` (verification codes always). Marketing follows the consent rules (suppression scope, do-not-disturb list, sending hours).",
    example: 'transactional',
  })
  purpose: string;

  @ApiProperty({
    enum: MESSAGE_STATUSES,
    description:
      'Moves forward only: scheduled -> queued -> sent -> delivered -> read (receipts, on channels whose provider sends them), or to failed; a failure receipt moves only a `sent` message to failed (UNDELIVERED, EXPIRED, REJECTED_BY_CARRIER: paid, not refunded). `cancelled` (final, refunded) only from scheduled, through POST /api/v2/messages/{id}/cancel.',
    example: 'sent',
  })
  status: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Minor units taken from the wallet (0 when free messages or the plan quota paid, or refunded).',
    example: 5,
  })
  cost: number;

  @ApiProperty({
    type: 'string',
    enum: [...FUNDING_SOURCES, null],
    nullable: true,
    description: 'What paid: free messages, plan quota or wallet (every part of an SMS from the same one).',
    example: 'wallet',
  })
  paidFrom: string | null;

  @ApiProperty(smsEncodingProperty(LOGGED_BEFORE))
  encoding: SmsEncoding | null;

  @ApiProperty(smsSegmentsProperty(LOGGED_BEFORE))
  segments: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The provider's message id once sent.",
    example: 'sbx_5f2c9a1e',
  })
  providerMessageId: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 100,
    description: "A failure receipt's own code from the provider (SMPP `err:`, Cloud API error code...).",
    example: null,
  })
  providerErrorCode: string | null;

  @ApiProperty({
    type: 'string',
    enum: [...MESSAGE_FAILURE_CODES, null],
    nullable: true,
    description:
      'Failed messages: why (the outcome codes and error codes of the API description; SERVICE_UNAVAILABLE only on messages of earlier versions).',
    example: null,
  })
  errorCode: MessageFailureCode | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Failed messages: what went wrong, for a person.',
    example: null,
  })
  errorMessage: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The bulk job that sent it.', example: null })
  bulkJobId: string | null;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    nullable: true,
    description: "Index of the message in its bulk job's `messages`.",
    example: null,
  })
  rowIndex: number | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  scheduledAt: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-22T10:15:30.120Z' })
  sentAt: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the provider reported it delivered (also set by a read receipt that came first).',
    example: null,
  })
  deliveredAt: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the provider reported it read (chat channels).',
    example: null,
  })
  readAt: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When it failed (a provider error at send time, or a failure receipt).',
    example: null,
  })
  failedAt: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:15:30.000Z' })
  createdAt: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Last change (status, receipt, hand-off).',
    example: '2026-11-22T10:15:30.120Z',
  })
  updatedAt: string;

  @ApiLivemode()
  livemode: boolean;
}

export class StatusHistoryEntry implements HistoryEntry {
  @ApiProperty({ enum: MESSAGE_STATUSES, example: 'sent' })
  status: HistoryEntry['status'];

  @ApiProperty({
    format: 'date-time',
    description: 'When it happened (for receipts: when the provider says it did).',
    example: '2026-11-22T10:15:30.120Z',
  })
  at: string;

  @ApiProperty({
    enum: ['api', 'provider'],
    description: '`api`: our send pipeline (or your cancel); `provider`: a delivery receipt.',
    example: 'api',
  })
  source: 'api' | 'provider';

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The provider's own word for the receipt (`DELIVRD`, `delivered`...).",
    example: null,
  })
  providerStatus: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Failures: the errorCode of this move.', example: null })
  errorCode: string | null;
}

export class MessageDetail extends MessageResource implements MessageDetailView {
  @ApiProperty({ type: () => [StatusHistoryEntry], description: 'Every status the message reached, oldest first.' })
  statusHistory: StatusHistoryEntry[];
}

export class CancelledMessage {
  @ApiProperty({
    type: () => MessageResource,
    description: 'The message as GET /api/v2/messages/{id} shows it now: `status: cancelled`, `cost: 0`.',
  })
  message: MessageResource;
}

export class MessageList {
  @ApiProperty({ type: () => [MessageResource], description: 'Newest first.' })
  messages: MessageResource[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last page.',
    example: null,
  })
  nextCursor: string | null;

  @ApiProperty({ example: false })
  hasMore: boolean;
}
