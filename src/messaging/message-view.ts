import type { SmsEncoding } from '../common/sms/sms-segments';
import { isLiveAccount } from '../accounts/account-mode';
import { iso } from '../database/columns';
import type { MessageEntity } from './entities/message.entity';
import type { MessageFailureCode } from './send-outcome';

export interface MessageView {
  id: string;
  to: string;
  channel: string;
  messageType: string;
  sender: string | null;
  templateId: string | null;
  purpose: string;
  status: string;
  cost: number;
  paidFrom: string | null;
  encoding: SmsEncoding | null;
  segments: number | null;
  providerMessageId: string | null;
  providerErrorCode: string | null;
  errorCode: MessageFailureCode | null;
  errorMessage: string | null;
  bulkJobId: string | null;
  rowIndex: number | null;
  scheduledAt: string | null;
  sentAt: string | null;
  deliveredAt: string | null;
  readAt: string | null;
  failedAt: string | null;
  createdAt: string;
  updatedAt: string;
  livemode: boolean;
}

export function toMessageView(m: MessageEntity): MessageView {
  return {
    id: m.id,
    to: m.recipient,
    channel: m.channel,
    messageType: m.messageType,
    sender: m.sender,
    templateId: m.templateId,
    purpose: m.purpose ?? 'transactional',
    status: m.status,
    cost: Number(m.cost),
    paidFrom: m.paidFrom,
    encoding: m.encoding ?? null,
    segments: m.segments === null || m.segments === undefined ? null : Number(m.segments),
    providerMessageId: m.providerMessageId,
    providerErrorCode: m.providerErrorCode ?? null,
    errorCode: m.errorCode,
    errorMessage: m.errorMessage,
    bulkJobId: m.bulkJobId,
    rowIndex: m.rowIndex,
    scheduledAt: iso(m.scheduledAt),
    sentAt: iso(m.sentAt),
    deliveredAt: iso(m.deliveredAt),
    readAt: iso(m.readAt),
    failedAt: iso(m.failedAt),
    createdAt: iso(m.createdAt) as string,
    updatedAt: iso(m.updatedAt) as string,
    livemode: isLiveAccount(m.accountId),
  };
}
