import type {
  CancelledMessage,
  MessageDetail,
  MessageList,
  MessageResource,
  SendMessageResult,
} from './message.response';

// Complete response bodies (envelope included) for the OpenAPI document; typed, so they keep the
// shape of the response classes.

export const MESSAGE_EXAMPLE: MessageResource = {
  id: 'msg_01jd0r8m6f3q9w2k4x7b5c8v1n',
  to: '+966501234567',
  channel: 'local_sms',
  messageType: 'free_text',
  sender: 'MyShop',
  templateId: null,
  purpose: 'transactional',
  status: 'delivered',
  cost: 5,
  paidFrom: 'wallet',
  encoding: 'gsm7',
  segments: 1,
  providerMessageId: 'sbx_5f2c9a1e',
  providerErrorCode: null,
  errorCode: null,
  errorMessage: null,
  bulkJobId: null,
  rowIndex: null,
  scheduledAt: null,
  sentAt: '2026-11-22T10:15:30.120Z',
  deliveredAt: '2026-11-22T10:15:32.004Z',
  readAt: null,
  failedAt: null,
  createdAt: '2026-11-22T10:15:30.000Z',
  updatedAt: '2026-11-22T10:15:32.010Z',
  livemode: true,
};

const MESSAGE_DETAIL: MessageDetail = {
  ...MESSAGE_EXAMPLE,
  statusHistory: [
    { status: 'queued', at: '2026-11-22T10:15:30.000Z', source: 'api', providerStatus: null, errorCode: null },
    { status: 'sent', at: '2026-11-22T10:15:30.120Z', source: 'api', providerStatus: null, errorCode: null },
    {
      status: 'delivered',
      at: '2026-11-22T10:15:32.004Z',
      source: 'provider',
      providerStatus: 'DELIVRD',
      errorCode: null,
    },
  ],
};
export const MESSAGE_DETAIL_EXAMPLE = { success: true, data: MESSAGE_DETAIL };

const SEND_DATA: SendMessageResult = {
  messages: [
    {
      id: 'msg_01jd0r8m6f3q9w2k4x7b5c8v1n',
      to: '+966501234567',
      channel: 'local_sms',
      purpose: 'transactional',
      status: 'sent',
      cost: 5,
      encoding: 'gsm7',
      segments: 1,
      livemode: true,
    },
    {
      id: 'msg_01jd0r8m6g0a1b2c3d4e5f6g7h',
      to: '+966501234568',
      channel: 'local_sms',
      purpose: 'transactional',
      status: 'failed',
      cost: 0,
      encoding: 'gsm7',
      segments: 1,
      errorCode: 'PROVIDER_REJECTED',
      livemode: true,
    },
  ],
};
export const SEND_EXAMPLE = { success: true, data: SEND_DATA };

const LIST_DATA: MessageList = { messages: [MESSAGE_EXAMPLE], nextCursor: null, hasMore: false };
export const LIST_EXAMPLE = { success: true, data: LIST_DATA };

const CANCELLED_DATA: CancelledMessage = {
  message: {
    ...MESSAGE_EXAMPLE,
    status: 'cancelled',
    cost: 0,
    providerMessageId: null,
    scheduledAt: '2026-11-23T09:00:00.000Z',
    sentAt: null,
    deliveredAt: null,
    updatedAt: '2026-11-22T11:02:00.000Z',
  },
};
export const CANCELLED_EXAMPLE = { success: true, data: CANCELLED_DATA };
